"""How far a stage that loops over problems has got: lines a person reads, numbers a UI shows.

Suite check, distill, filter, augment and evaluate take a `Progress`, call
`start` before a loop over problems and `advance` once per finished problem.
The lines (`augment: 7/18 problems (softmax: 3/3 shapes verified), 2m05s, 18s each, ~3m18s left`:
the time so far, then the time per thing done and the time left at that rate)
go to the stage's log: the CLI prints them, a Prefect task's run logger
keeps them. `on_update` gets the same counts; tasks/stages.py turns them
into a Prefect progress artifact. A line per problem, but at most one every
`interval_s` (the first and the last problem always), so a run over 250
KernelBench problems does not flood the log. Things finished together (a
batch of prompts generated at once) advance the count together (`count`), so
the batch's line says how far the loop is, not where the batch began.

Never imports prefect. Test: tests/stages/test_progress.py.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from tritonrl.stages.summary import Log
from tritonrl.verify.result import Verdict

if TYPE_CHECKING:  # the pool imports triton, which must wait for pipeline.prepare_environment
    from tritonrl.verify.pool import ProblemBatch

INTERVAL_S = 5.0  # the least time between two progress lines of one loop

Update = Callable[[str, int, int, str], None]  # (stage, problems done, problems in all, the line)


def _nothing(*_) -> None:
    pass


class Progress:
    """Where a stage's progress goes; stateless, so one instance serves any number of loops, even at once."""

    def __init__(
        self,
        on_log: Log = _nothing,
        on_update: Update | None = None,
        interval_s: float = INTERVAL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.on_log, self.on_update, self.interval_s, self.clock = on_log, on_update or _nothing, interval_s, clock

    def start(self, stage: str, total: int, unit: str = "problems") -> Tally:
        """A count of `total` things for `stage`; reports `stage: 0/total unit` at once."""
        return Tally(self, stage, total, unit)


SILENT = Progress()  # the stages' default: nothing reported


class Tally:
    """One loop's count. `advance` may be called from several threads (distill finishes problems concurrently)."""

    def __init__(self, progress: Progress, stage: str, total: int, unit: str) -> None:
        self._progress, self.stage, self.total, self.unit = progress, stage, total, unit
        self.done = 0
        self._lock = threading.Lock()
        self._started = self._last = progress.clock()
        self._report("")

    def advance(self, detail: str = "", count: int = 1) -> None:
        """`count` more finished (together); `detail` (e.g. `relu: 2/2 accepted`) says how it went."""
        with self._lock:
            first = self.done == 0
            self.done += count
            if first or self.done >= self.total or self._progress.clock() - self._last >= self._progress.interval_s:
                self._report(detail)

    def _report(self, detail: str) -> None:
        self._last = self._progress.clock()
        elapsed = self._last - self._started
        line = f"{self.stage}: {self.done}/{self.total} {self.unit}{f' ({detail})' if detail else ''}, {_duration(elapsed)}"
        if self.done > 0 and elapsed > 0:
            each = elapsed / self.done
            line += f", {_duration(each, precise=each < 10)} each"
            if self.done < self.total:
                line += f", ~{_duration(each * (self.total - self.done))} left"
        self._progress.on_log(line)
        self._progress.on_update(self.stage, self.done, self.total, line)


def _duration(seconds: float, precise: bool = False) -> str:
    """`7s`, `2m05s`, `1h03m`; `precise`: tenths under a minute (`1.4s`), for the time each thing takes."""
    if precise and seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def together(names: list[str]) -> str:
    """A progress detail for things finished at once: the name, or `a … b, 8 in one batch`."""
    if len(names) == 1:
        return names[0]
    return f"{names[0]} … {names[-1]}, {len(names)} in one batch"


def per_batch(done: Callable[[ProblemBatch, list[Verdict]], None]) -> Callable[[ProblemBatch, int, Verdict], None]:
    """A `VerifierPool.verify_batches` `on_verdict` that calls `done(batch, its verdicts)` once a batch is complete."""
    pending: dict[str, list[Verdict]] = {}

    def on_verdict(batch: ProblemBatch, index: int, verdict: Verdict) -> None:
        verdicts = pending.setdefault(batch.key, [])
        verdicts.append(verdict)
        if len(verdicts) == len(batch.responses):
            done(batch, pending.pop(batch.key))

    return on_verdict
