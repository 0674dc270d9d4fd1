"""The filter stage: keep only teacher samples the verifier accepts (valid ∧ correct).

Reads a distill dataset, verifies every sample through the verifier pool
(each problem's reference runs once), and publishes two datasets: the
accepted samples, and the rejected ones with their reason codes and
messages. Samples whose teacher request failed are rejected as
`teacher_error` without being run. The summary gives the acceptance rate
and counts per reason.

Run: `tritonrl filter --input <distill dataset URI>`. Test: tests/test_data_stages.py.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from tritonrl.config import Config
from tritonrl.datasets_io import PublishedDataset, publish_dataset, read_dataset, read_manifest
from tritonrl.storage import ArtifactStore, join
from tritonrl.verify.pool import Task, VerifierPool
from tritonrl.verify.result import Verdict
from tritonrl.verify.verifier import VerifierSettings

TEACHER_ERROR = "teacher_error"


@dataclass(frozen=True)
class FilterResult:
    accepted: PublishedDataset
    rejected: PublishedDataset
    samples: int
    reasons: dict[str, int]  # reason code -> rejected samples carrying it

    @property
    def acceptance_rate(self) -> float:
        return self.accepted.rows / self.samples if self.samples else 0.0


def verifier_settings(config: Config) -> VerifierSettings:
    return VerifierSettings(device=config.verify.device, trials=config.verify.trials, timeout_s=config.verify.timeout_s)


def _verdict_fields(verdict: Verdict) -> dict[str, Any]:
    return {
        "reasons": verdict.codes,
        "messages": [r.message for r in verdict.reasons],
        "verified_shapes": verdict.shapes,
        "speedup": verdict.speedup,
        "kernel_launches": verdict.kernel_launches,
    }


def run(
    config: Config,
    input_uri: str,
    out_root: str | None = None,
    on_verdict: Callable[[Task, int, Verdict], None] = lambda *a: None,
) -> FilterResult:
    store = ArtifactStore(config.storage.s3_endpoint_url)
    source_manifest = read_manifest(store, input_uri)
    samples = read_dataset(store, input_uri)
    runnable = [s for s in samples if s.get("response") is not None]
    tasks: dict[str, Task] = {}
    for sample in runnable:
        task = tasks.setdefault(sample["problem"], Task(sample["problem"], sample["problem_source"], []))
        task.responses.append(sample["response"])
    with VerifierPool(verifier_settings(config)) as pool:
        verdicts = pool.verify_tasks(tasks.values(), on_verdict)

    accepted, rejected = [], []
    position = Counter()
    for sample in samples:
        if sample.get("response") is None:
            rejected.append({**sample, "reasons": [TEACHER_ERROR], "messages": [sample.get("error") or "no response"]})
            continue
        verdict = verdicts[sample["problem"]][position[sample["problem"]]]
        position[sample["problem"]] += 1
        (accepted if verdict.correct else rejected).append({**sample, **_verdict_fields(verdict)})

    reasons = Counter(code for sample in rejected for code in set(sample["reasons"]))
    root = out_root or join(config.artifact_root, "datasets")
    manifest = {
        "stage": "filter",
        "input": input_uri,
        "input_digest": source_manifest["digest"],
        "counts": {"samples": len(samples), "accepted": len(accepted), "rejected": len(rejected)},
        "reasons": dict(reasons),
        "verifier": {"device": config.verify.device, "trials": config.verify.trials},
        "config": config.to_dict(),
    }
    return FilterResult(
        accepted=publish_dataset(store, root, "filter-accepted", accepted, manifest),
        rejected=publish_dataset(store, root, "filter-rejected", rejected, manifest),
        samples=len(samples),
        reasons=dict(reasons),
    )
