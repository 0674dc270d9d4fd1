"""How far a stage that loops over problems has got: lines a person reads, numbers a UI shows.

Suite check, distill, filter, augment and evaluate take a `Progress`, call
`start` before a loop over problems and `advance` once per finished problem.
The lines (`augment: 7/18 problems (softmax: 3/3 shapes verified), 2m05s`)
go to the stage's log: the CLI prints them, a Prefect task's run logger
keeps them. `on_update` gets the same counts; tasks/stages.py turns them
into a Prefect progress artifact. A line per problem, but at most one every
`interval_s` (the first and the last problem always), so a run over 250
KernelBench problems does not flood the log.

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

    def __init__(self, on_log: Log = _nothing, on_update: Update | None = None, interval_s: float = INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
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

    def advance(self, detail: str = "") -> None:
        """One more finished; `detail` (e.g. `relu: 2/2 accepted`) says how it went."""
        with self._lock:
            self.done += 1
            if self.done in (1, self.total) or self._progress.clock() - self._last >= self._progress.interval_s:
                self._report(detail)

    def _report(self, detail: str) -> None:
        self._last = self._progress.clock()
        line = (f"{self.stage}: {self.done}/{self.total} {self.unit}{f' ({detail})' if detail else ''}, "
                f"{_duration(self._last - self._started)}")
        self._progress.on_log(line)
        self._progress.on_update(self.stage, self.done, self.total, line)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def per_batch(done: Callable[[ProblemBatch, list[Verdict]], None]) -> Callable[[ProblemBatch, int, Verdict], None]:
    """A `VerifierPool.verify_batches` `on_verdict` that calls `done(batch, its verdicts)` once a batch is complete."""
    pending: dict[str, list[Verdict]] = {}

    def on_verdict(batch: ProblemBatch, index: int, verdict: Verdict) -> None:
        verdicts = pending.setdefault(batch.key, [])
        verdicts.append(verdict)
        if len(verdicts) == len(batch.responses):
            done(batch, pending.pop(batch.key))

    return on_verdict
