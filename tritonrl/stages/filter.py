"""The filter stage: keep only teacher samples the verifier accepts (valid ∧ correct).

Reads a distill dataset, verifies every sample through the verifier pool
(each problem's reference runs once), and publishes two datasets: the
accepted samples, and the rejected ones with their reason codes and
messages. Samples whose teacher request failed are rejected as
`teacher_error` without being run. The summary gives the acceptance rate
and counts per reason.

Multi-turn distillation (`teacher.repair_turns` K > 0): a rejected answer
is handed back to the teacher with the verifier's feedback
(prompts.refinement_messages) and verified again, up to K more turns. Every
record then has `turns` (1: accepted or rejected as sampled), `first_reasons`
(the first answer's) and `conversation` (for a repaired answer: the messages
it answered, problem to last feedback; augment trains on them as the
prompt); the manifest counts repairs per turn. K = 0 leaves the datasets as
they were.

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
from tritonrl.evaluation.metrics import FIRST_TURN
from tritonrl.prompts import build_messages, refinement_messages
from tritonrl.stages.progress import SILENT, Progress, per_batch, together
from tritonrl.stages.refine import ask, verify_answers
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


def judge(
    config: Config, samples: list[dict[str, Any]], progress: Progress = SILENT, stage: str = "filter"
) -> list[tuple[bool, dict[str, Any]]]:
    """(accepted, record) per sample, in order: verdict fields added, or `teacher_error` for a failed request.

    With `teacher.repair_turns` K > 0 a rejected answer gets up to K turns of the verifier's feedback to the
    teacher (`_repair`); every record then carries `turns` and `conversation` (see the module docstring).
    """
    batches: dict[str, ProblemBatch] = {}
    for sample in samples:
        if sample.get("response") is not None:
            batch = batches.setdefault(sample["problem"], ProblemBatch(sample["problem"], sample["problem_source"], []))
            batch.responses.append(sample["response"])
    tally = progress.start(stage, len(batches))
    with VerifierPool(VerifierSettings.from_config(config.verify)) as pool:
        verdicts = pool.verify_batches(
            batches.values(),
            per_batch(
                lambda batch, done: tally.advance(f"{batch.key}: {sum(v.correct for v in done)}/{len(done)} accepted")
            ),
        )
        position = Counter()
        found: list[Verdict | None] = []
        for sample in samples:
            if sample.get("response") is None:
                found.append(None)
                continue
            found.append(verdicts[sample["problem"]][position[sample["problem"]]])
            position[sample["problem"]] += 1
        repaired = _repair(config, pool, samples, found, progress, stage) if config.teacher.repair_turns else {}
    judged = []
    for index, (sample, verdict) in enumerate(zip(samples, found)):
        if verdict is None:
            record = {**sample, "reasons": [TEACHER_ERROR], "messages": [sample.get("error") or "no response"]}
        else:
            record = {**sample, **_verdict_fields(verdict)}
        if config.teacher.repair_turns:
            record.update({"turns": FIRST_TURN, "conversation": None, "first_reasons": record["reasons"]})
        if index in repaired:
            verdict, update = repaired[index]
            record.update({**update, **_verdict_fields(verdict)})
        judged.append((verdict is not None and verdict.correct, record))
    return judged


def _repair(
    config: Config,
    pool: VerifierPool,
    samples: list[dict[str, Any]],
    found: list[Verdict | None],
    progress: Progress,
    stage: str,
) -> dict[int, tuple[Verdict, dict[str, Any]]]:
    """Rejected answers, each given the verifier's feedback and asked again, up to `teacher.repair_turns` turns.

    Returns, per repaired-or-retried sample index, its last verdict and the record fields it changes: the last
    `response`, the `turns` it took and the `conversation` that last response answered (the prompt an SFT pair
    trains it on). The teacher samples at its temperature, as in distillation.
    """
    from tritonrl.generation import build_teacher
    from tritonrl.problems import load_problems

    known = {p.name: p for p in load_problems(config.problems.source, config.problems.levels)}
    teacher = build_teacher(config.teacher)
    pending = {
        i: build_messages(s["problem_source"])
        for i, (s, v) in enumerate(zip(samples, found))
        if v is not None
        and not v.correct
        and s["problem"] in known
        and known[s["problem"]].source == s["problem_source"]
    }  # the teacher's problem is the one verified
    latest = {i: (found[i], samples[i]["response"]) for i in pending}
    out: dict[int, tuple[Verdict, dict[str, Any]]] = {}
    for turn in range(FIRST_TURN + 1, FIRST_TURN + 1 + config.teacher.repair_turns):
        if not pending:
            break
        for i in pending:
            pending[i] = refinement_messages(pending[i], latest[i][1], latest[i][0])
        order = list(pending)
        tally = progress.start(f"{stage} repair turn {turn}", len(order), "answers asked again")
        answers = ask(
            teacher,
            [(known[samples[i]["problem"]], pending[i]) for i in order],
            1,
            config.teacher.temperature,
            config.teacher.max_tokens,
            lambda problems: tally.advance(together([p.name for p in problems]), count=len(problems)),
        )
        responses = {i: completions[0].text or "" for i, completions in zip(order, answers)}
        verified = verify_answers(
            pool, known, [{"problem": samples[i]["problem"], "response": responses[i], "index": i} for i in order]
        )
        for answer, verdict in verified:
            i = answer["index"]
            latest[i] = (verdict, responses[i])
            out[i] = (verdict, {"response": responses[i], "turns": turn, "conversation": pending[i]})
            if verdict.correct:
                del pending[i]
    return out


def _publish(
    config: Config,
    store: ArtifactStore,
    input_uri: str,
    judged: list[tuple[bool, dict[str, Any]]],
    out_root: str | None,
    provenance: dict[str, Any],
) -> FilterResult:
    """The accepted and rejected datasets of the whole input; the same records whether or not it was sharded."""
    accepted = [record for ok, record in judged if ok]
    rejected = [record for ok, record in judged if not ok]
    reasons = Counter(code for sample in rejected for code in set(sample["reasons"]))
    root = out_root or join(config.artifact_root, "datasets")
    manifest = {
        "stage": "filter",
        "input": input_uri,
        "input_digest": read_manifest(store, input_uri)["digest"],
        "counts": {
            "samples": len(judged),
            "accepted": len(accepted),
            "rejected": len(rejected),
            **(
                {
                    "repaired": dict(
                        sorted(Counter(str(r["turns"]) for r in accepted if r["turns"] > FIRST_TURN).items())
                    )
                }
                if config.teacher.repair_turns
                else {}
            ),
        },
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
    return _publish(
        config, store, input_uri, judge(config, read_dataset(store, input_uri, INPUT_KIND), progress), out_root, {}
    )


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
    rows = [
        {"position": position, "accepted": ok, "record": record} for (position, _), (ok, record) in zip(picked, judged)
    ]
    dataset = shards.publish_shard(
        store,
        config.artifact_root,
        "filter",
        shard,
        input_uri,
        read_manifest(store, input_uri)["digest"],
        mine,
        len(weights),
        rows,
    )
    return FilterShard(dataset, len(mine), sum(ok for ok, _ in judged))


def merge(config: Config, input_uri: str, shard_uris: list[str], out_root: str | None = None) -> FilterResult:
    """The filter's outputs from a complete set of its shard datasets: the records `run` would publish."""
    store = ArtifactStore.of(config.storage)
    rows = shards.read_shards(store, "filter", input_uri, shard_uris)
    return _publish(
        config,
        store,
        input_uri,
        [(row["accepted"], row["record"]) for row in rows],
        out_root,
        {"merged_from": list(shard_uris)},
    )
