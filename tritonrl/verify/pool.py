"""Verify a stream of candidates for many problems on several workers at once.

Each worker owns a `Verifier` (its own fork server and job root): on CPU one
worker per core (kernels run in the interpreter, one thread each); on CUDA
`workers_per_gpu` workers per visible GPU, or per GPU named in `gpus` (a
GRPO training process verifies on its own GPU); a worker's fork server sees
only its GPU. Several candidates' imports, compilation, correctness trials and
output transfers overlap on one GPU, while timed runs take the GPU's
machine-wide timing lock (child.py), so timing never shares a device.
Isolation is the Verifier's: every candidate still runs in a fresh
sandboxed child, and a CUDA error kills only that child. Problems are
processed in waves of one problem per device slot (a GPU, or a CPU worker):
their references run in parallel, once each, then all their candidates are
spread over the workers, then the references are released (full-size
outputs are GBs). A candidate that runs out of GPU memory, hits a CUDA
error or times out while sharing its GPU is verified again alone, so a
neighbour's memory (or a hung neighbour holding the GPU lock) never decides
its verdict.

Test: tests/verify/test_pool.py.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

from tritonrl.verify.interpreter import check_interpreter
from tritonrl.verify.result import ReasonCode, Verdict
from tritonrl.verify.verifier import ReferenceRun, Verifier, VerifierSettings


@dataclass(frozen=True)
class ProblemBatch:
    """All candidates for one problem; `key` names the problem in results and progress."""

    key: str
    problem_source: str
    responses: list[str]


# Failures that sharing a GPU can cause; a candidate that got one is re-verified alone. A timeout too: a job's
# clock runs while it waits for the GPU lock, which a hung neighbour can hold for its whole timeout.
_SHARING_FAILURES = {ReasonCode.OUT_OF_MEMORY, ReasonCode.CUDA_ERROR, ReasonCode.TIMEOUT}
DEFAULT_WORKERS_PER_GPU = 3  # enough to hide a candidate's start-up and transfers behind another's timing


def visible_gpus() -> list[str]:
    """This process's GPUs, named as a child's CUDA_VISIBLE_DEVICES names them (at least one)."""
    visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    if visible:
        return visible
    import torch

    return [str(i) for i in range(max(1, torch.cuda.device_count()))]


class GpuGate:
    """Jobs share a GPU, or one job has it alone; a waiting exclusive job goes first (no starvation)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._exclusive = False
        self._waiting = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._exclusive and not self._waiting)
            self._shared += 1
        try:
            yield
        finally:
            with self._cond:
                self._shared -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            self._cond.wait_for(lambda: not self._exclusive and self._shared == 0)
            self._waiting -= 1
            self._exclusive = True
        try:
            yield
        finally:
            with self._cond:
                self._exclusive = False
                self._cond.notify_all()


class VerifierPool:
    """A fixed set of verifier workers; use as a context manager."""

    def __init__(
        self,
        settings: VerifierSettings,
        workers: int | None = None,
        workers_per_gpu: int = DEFAULT_WORKERS_PER_GPU,
        gpus: Sequence[str] = (),
    ) -> None:
        """`gpus` (CUDA_VISIBLE_DEVICES names) narrows a cuda pool to some GPUs, e.g. one training process's own.

        An unusable interpreter is refused here, before a stage loads models or samples, not in the first batch."""
        if settings.device == "cpu":
            check_interpreter()
        self.settings = settings
        self.gpus = list(gpus or visible_gpus()) if settings.device == "cuda" else []
        # A device slot is a GPU on cuda, a core on cpu: how many problems' references run at once.
        self.slots = len(self.gpus) if settings.device == "cuda" else max(1, os.cpu_count() or 1)
        per_slot = workers_per_gpu if settings.device == "cuda" else 1
        self.workers = workers or self.slots * per_slot
        self._local = threading.local()
        self._verifiers: list[Verifier] = []
        self._lock = threading.Lock()
        self._gates: dict[str, GpuGate] = {}
        self._shares_gpu = settings.device == "cuda" and self.workers > self.slots
        self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="verifier")

    def _worker_env(self, index: int) -> dict[str, str]:
        if self.settings.device == "cuda":
            return {"CUDA_VISIBLE_DEVICES": self.gpus[index % self.slots]}
        threads = max(1, (os.cpu_count() or 1) // self.workers)
        return {"OMP_NUM_THREADS": str(threads), "MKL_NUM_THREADS": str(threads)}

    def _verifier(self) -> Verifier:
        """This thread's verifier, created on first use with its own worker slot."""
        if not hasattr(self._local, "verifier"):
            with self._lock:
                index = len(self._verifiers)
                verifier = Verifier(self.settings, worker_env=self._worker_env(index))
                self._verifiers.append(verifier)
            self._local.verifier = verifier
        return self._local.verifier

    def _gate(self, verifier: Verifier) -> GpuGate:
        with self._lock:
            return self._gates.setdefault(verifier.gpu, GpuGate())

    def _reference(self, batch: ProblemBatch) -> ReferenceRun:
        verifier = self._verifier()
        with self._gate(verifier).shared():
            return verifier.prepare_reference(batch.problem_source)

    def _judge(self, reference: ReferenceRun, response: str) -> Verdict:
        verifier = self._verifier()
        gate = self._gate(verifier)
        with gate.shared():
            verdict = verifier.verify_against(reference, response)
        if self._shares_gpu and _SHARING_FAILURES & {r.code for r in verdict.reasons}:
            with gate.exclusive():
                verdict = verifier.verify_against(reference, response)
        return verdict

    def verify_batches(
        self,
        batches: Iterable[ProblemBatch],
        on_verdict: Callable[[ProblemBatch, int, Verdict], None] = lambda *a: None,
        on_reference: Callable[[ProblemBatch, ReferenceRun], None] = lambda *a: None,
    ) -> dict[str, list[Verdict]]:
        """Verdicts for every response of every batch, in response order, keyed by batch key."""
        batches = list(batches)
        if len({t.key for t in batches}) != len(batches):
            raise ValueError("batch keys must be unique: one batch per problem")
        results: dict[str, list[Verdict]] = {}
        wave_size = min(self.slots, self.workers)
        for start in range(0, len(batches), wave_size):
            wave = batches[start : start + wave_size]
            references = list(self._executor.map(self._reference, wave))
            for batch, reference in zip(wave, references):
                on_reference(batch, reference)
            jobs = [
                (batch, index, self._executor.submit(self._judge, reference, response))
                for batch, reference in zip(wave, references)
                for index, response in enumerate(batch.responses)
            ]
            for batch in wave:
                results[batch.key] = [None] * len(batch.responses)
            for batch, index, future in jobs:
                verdict = future.result()
                results[batch.key][index] = verdict
                on_verdict(batch, index, verdict)
            del references
            if self.settings.device == "cuda":
                import torch

                torch.cuda.empty_cache()  # the references' GBs go back to the GPU, for the children to use
        return results

    def close(self, interrupted: bool = False) -> None:
        """Stop the workers; `interrupted`: drop queued candidates and end running ones instead of waiting for them."""
        if interrupted:
            self._executor.shutdown(wait=False, cancel_futures=True)  # first, so no worker takes up a queued one
            with self._lock:
                for verifier in self._verifiers:
                    verifier.interrupt()
        self._executor.shutdown(wait=True)
        for verifier in self._verifiers:
            verifier.close()

    def __enter__(self) -> VerifierPool:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(interrupted=exc_type is not None)
