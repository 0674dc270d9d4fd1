"""The filter stage: keep only teacher samples the verifier accepts (valid ∧ correct).

Reads a distill dataset, verifies every sample through the verifier pool
(each problem's reference runs once), and publishes two datasets: the
accepted samples, and the rejected ones with their reason codes and
messages. Samples whose teacher request failed are rejected as
`teacher_error` without being run. The summary gives the acceptance rate
and counts per reason.

Sharded (tritonrl/artifacts/shards.py): `run_shard` verifies one shard's problems and
publishes its judged rows; `merge` publishes, from all shards, the same
accepted and rejected records as `run` (same content, so the same URIs).

Run: `tritonrl filter --input <distill dataset URI>`. Test: tests/stages/test_data_stages.py.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from tritonrl.artifacts import shards
from tritonrl.artifacts.datasets_io import PublishedDataset, publish_dataset, read_dataset, read_manifest
from tritonrl.artifacts.shards import Shard
from tritonrl.artifacts.store import ArtifactStore, join
from tritonrl.config import Config
from tritonrl.stages.progress import SILENT, Progress, per_batch
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.result import Verdict
from tritonrl.verify.verifier import VerifierSettings

INPUT_KIND = "the distill dataset the distill stage printed (…/distill-<digest>)"
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


@dataclass(frozen=True)
class FilterShard:
    dataset: PublishedDataset  # the shard's judged rows (tritonrl/artifacts/shards.py), input to `merge`
    problems: int
    accepted: int


def _verdict_fields(verdict: Verdict) -> dict[str, Any]:
    return {
        "reasons": verdict.codes,
        "messages": [r.message for r in verdict.reasons],
        "verified_shapes": verdict.shapes,
        "speedup": verdict.speedup,
        "sol_fraction": verdict.sol_fraction,
        "kernel_launches": verdict.kernel_launches,
    }


def judge(config: Config, samples: list[dict[str, Any]], progress: Progress = SILENT,
          stage: str = "filter") -> list[tuple[bool, dict[str, Any]]]:
    """(accepted, record) per sample, in order: verdict fields added, or `teacher_error` for a failed request."""
    batches: dict[str, ProblemBatch] = {}
    for sample in samples:
        if sample.get("response") is not None:
            batch = batches.setdefault(sample["problem"], ProblemBatch(sample["problem"], sample["problem_source"], []))
            batch.responses.append(sample["response"])
    tally = progress.start(stage, len(batches))
    with VerifierPool(VerifierSettings.from_config(config.verify)) as pool:
        verdicts = pool.verify_batches(batches.values(), per_batch(
            lambda batch, done: tally.advance(f"{batch.key}: {sum(v.correct for v in done)}/{len(done)} accepted")))
    judged = []
    position = Counter()
    for sample in samples:
        if sample.get("response") is None:
            judged.append((False, {**sample, "reasons": [TEACHER_ERROR],
                                   "messages": [sample.get("error") or "no response"]}))
            continue
        verdict = verdicts[sample["problem"]][position[sample["problem"]]]
        position[sample["problem"]] += 1
        judged.append((verdict.correct, {**sample, **_verdict_fields(verdict)}))
    return judged


def _publish(config: Config, store: ArtifactStore, input_uri: str, judged: list[tuple[bool, dict[str, Any]]],
             out_root: str | None, provenance: dict[str, Any]) -> FilterResult:
    """The accepted and rejected datasets of the whole input; the same records whether or not it was sharded."""
    accepted = [record for ok, record in judged if ok]
    rejected = [record for ok, record in judged if not ok]
    reasons = Counter(code for sample in rejected for code in set(sample["reasons"]))
    root = out_root or join(config.artifact_root, "datasets")
    manifest = {
        "stage": "filter",
        "input": input_uri,
        "input_digest": read_manifest(store, input_uri)["digest"],
        "counts": {"samples": len(judged), "accepted": len(accepted), "rejected": len(rejected)},
        "reasons": dict(reasons),
        "verifier": {"device": config.verify.device, "trials": config.verify.trials},
        "config": config.to_dict(),
        **provenance,
    }
    return FilterResult(
        accepted=publish_dataset(store, root, "filter-accepted", accepted, manifest),
        rejected=publish_dataset(store, root, "filter-rejected", rejected, manifest),
        samples=len(judged),
        reasons=dict(reasons),
    )


def run(
    config: Config,
    input_uri: str,
    out_root: str | None = None,
    progress: Progress = SILENT,
) -> FilterResult:
    """Verify every sample of the dataset at `input_uri`; publish the accepted and rejected datasets."""
    store = ArtifactStore.of(config.storage)
    return _publish(config, store, input_uri, judge(config, read_dataset(store, input_uri, INPUT_KIND), progress), out_root, {})


def run_shard(
    config: Config,
    input_uri: str,
    shard: Shard,
    progress: Progress = SILENT,
) -> FilterShard:
    """Verify the samples of this shard's problems (tritonrl.artifacts.shards.assign); publish them as a shard dataset."""
    store = ArtifactStore.of(config.storage)
    samples = read_dataset(store, input_uri, INPUT_KIND)
    weights = Counter()
    for sample in samples:
        weights[sample["problem"]] += sample.get("response") is not None
    mine = shards.assign(weights, shard.count)[shard.index]
    chosen = set(mine)
    picked = [(position, sample) for position, sample in enumerate(samples) if sample["problem"] in chosen]
    judged = judge(config, [sample for _, sample in picked], progress, f"filter shard {shard.label}")
    rows = [{"position": position, "accepted": ok, "record": record}
            for (position, _), (ok, record) in zip(picked, judged)]
    dataset = shards.publish_shard(store, config.artifact_root, "filter", shard, input_uri,
                                   read_manifest(store, input_uri)["digest"], mine, len(weights), rows)
    return FilterShard(dataset, len(mine), sum(ok for ok, _ in judged))


def merge(config: Config, input_uri: str, shard_uris: list[str], out_root: str | None = None) -> FilterResult:
    """The filter's outputs from a complete set of its shard datasets: the records `run` would publish."""
    store = ArtifactStore.of(config.storage)
    rows = shards.read_shards(store, "filter", input_uri, shard_uris)
    return _publish(config, store, input_uri, [(row["accepted"], row["record"]) for row in rows], out_root,
                    {"merged_from": list(shard_uris)})
