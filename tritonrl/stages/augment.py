"""The augment stage: turn each verified task into several tasks with other input shapes.

For every problem with an accepted solution, propose `augment.variants_per_task`
shape variants (tritonrl/verify/variants.py: module-level constants and
get_inputs size literals rescaled, constraints kept), and re-verify the
distinct accepted solutions on each. A variant exists only if its reference
runs; a (variant prompt, solution) pair is kept only if the solution passes
there. Publishes two datasets: `augment-pairs` (SFT data: the original
accepted pairs plus the variant pairs) and `augment-tasks` (the GRPO task
set: each original problem and each variant that exists).

With `augment.refinement_pairs` N > 0 the pairs also get up to N refinement
rows per problem: an accepted answer broken one way per kind
(tritonrl/generation/breakage.py, kinds tried in a seeded order; one kind
puts the most similar other problem's answer in its place), verified
with the variants, and kept only where the verifier rejects it. The row's
`prompt` is the conversation so far (the problem, the broken answer, the
verifier's feedback: prompts.refinement_messages) and its `response` the
answer before it was broken, so SFT trains the fix and nothing else. The
single-turn rows stay exactly as they were.

Run: `tritonrl augment --input <filter-accepted dataset URI>`. Test: tests/stages/test_data_stages.py.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from tritonrl.artifacts.datasets_io import PublishedDataset, publish_dataset, read_dataset, read_manifest
from tritonrl.artifacts.store import ArtifactStore, join
from tritonrl.config import Config
from tritonrl.generation.breakage import ALL_KINDS, Breakage, break_response
from tritonrl.problems.shapes import shape_sites, with_shapes
from tritonrl.verify.variants import make_variants
from tritonrl.prompts import FEEDBACK_VERSION, PROMPT_VERSION, build_messages, refinement_messages
from tritonrl.stages.progress import SILENT, Progress, per_batch
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.result import Layer, Verdict
from tritonrl.verify.verifier import VerifierSettings

# Reasons that mean the variant itself is unusable (not that the solution failed on it), or a broken answer's
# feedback would be about the environment, not the answer.
INPUT_KIND = "the accepted dataset the filter stage printed (…/filter-accepted-<digest>)"
_VARIANT_BROKEN = {Layer.ENVIRONMENT}
_REFINE = "#refine"  # key suffix of a problem's batch of broken answers


@dataclass(frozen=True)
class AugmentResult:
    pairs: PublishedDataset
    tasks: PublishedDataset
    problems: int
    variants_proposed: int
    variants_kept: int  # variants whose reference ran
    variant_pairs: int  # (variant, solution) pairs that passed
    refinement_pairs: int = 0  # (broken answer, feedback, fixed answer) rows


def _variant_name(problem: str, index: int) -> str:
    return f"{problem}#v{index}"


def run(
    config: Config,
    input_uri: str,
    out_root: str | None = None,
    progress: Progress = SILENT,
) -> AugmentResult:
    store = ArtifactStore.of(config.storage)
    source_manifest = read_manifest(store, input_uri, INPUT_KIND)
    accepted = read_dataset(store, input_uri, INPUT_KIND)

    problems: dict[str, dict[str, Any]] = {}
    for sample in accepted:
        entry = problems.setdefault(sample["problem"], {"sample": sample, "responses": []})
        if sample["response"] not in entry["responses"]:
            entry["responses"].append(sample["response"])

    settings = VerifierSettings.from_config(config.verify)
    # On CPU, propose only variants the interpreter runs as written (no shrinking), so prompts show real shapes.
    max_elements = settings.cpu_element_budget if settings.device == "cpu" else None
    batches, variant_info = [], {}
    for name, entry in problems.items():
        source = entry["sample"]["problem_source"]
        overrides = make_variants(
            source, config.augment.variants_per_task, seed=config.augment.seed, max_elements=max_elements
        )
        for index, override in enumerate(overrides, start=1):
            key = _variant_name(name, index)
            variant_source = with_shapes(source, override)
            variant_info[key] = (name, index, variant_source)
            batches.append(ProblemBatch(key, variant_source, entry["responses"]))
    answers = {name: entry["responses"][0] for name, entry in problems.items()}
    broken = (
        {name: _breakages(name, entry, config.augment.seed, answers) for name, entry in problems.items()}
        if config.augment.refinement_pairs
        else {}
    )
    refine_batches = [
        ProblemBatch(name + _REFINE, problems[name]["sample"]["problem_source"], [b.response for b, _ in found])
        for name, found in broken.items()
        if found
    ]
    with VerifierPool(settings) as pool:
        verdicts = pool.verify_batches(
            batches + refine_batches,
            _problem_progress(
                progress,
                list(problems),
                {
                    **{key: info[0] for key, info in variant_info.items()},
                    **{batch.key: batch.key.removesuffix(_REFINE) for batch in refine_batches},
                },
            ),
        )

    pairs = [
        _pair(name, 0, entry["sample"]["problem_source"], response, entry["sample"])
        for name, entry in problems.items()
        for response in entry["responses"]
    ]
    task_rows = [_task(name, 0, entry["sample"]["problem_source"], entry["sample"]) for name, entry in problems.items()]
    kept = 0
    for batch in batches:
        name, index, variant_source = variant_info[batch.key]
        results = verdicts[batch.key]
        if any(r.code.layer in _VARIANT_BROKEN for v in results for r in v.reasons):
            continue
        kept += 1
        task_rows.append(_task(name, index, variant_source, problems[name]["sample"]))
        pairs += [
            _pair(name, index, variant_source, response, problems[name]["sample"])
            for response, verdict in zip(batch.responses, results)
            if verdict.correct
        ]

    refinement, tally = [], {"proposed": Counter(), "kept": Counter(), "reasons": Counter()}
    for name, found in broken.items():
        refinement += _refinement_rows(
            name, problems[name], found, verdicts.get(name + _REFINE, []), config.augment.refinement_pairs, tally
        )
    root = out_root or join(config.artifact_root, "datasets")
    variant_pairs = sum(p["variant"] > 0 for p in pairs)
    pairs += refinement
    # Multi-turn distillation's repaired answers (filter, teacher.repair_turns): trained on the conversation they answered.
    repaired = [
        {
            **_pair(sample["problem"], 0, sample["problem_source"], sample["response"], sample),
            "prompt": sample["conversation"],
        }
        for sample in accepted
        if sample.get("conversation")
    ]
    pairs += repaired
    manifest = {
        "stage": "augment",
        "input": input_uri,
        "input_digest": source_manifest["digest"],
        "counts": {
            "problems": len(problems),
            "variants_proposed": len(batches),
            "variants_kept": kept,
            "pairs": len(pairs),
            "variant_pairs": variant_pairs,
            "refinement_pairs": len(refinement),
            "repaired_pairs": len(repaired),
            "tasks": len(task_rows),
        },
        "refinement": {key: dict(sorted(counts.items())) for key, counts in tally.items()},
        "prompt_version": PROMPT_VERSION,
        "feedback_version": FEEDBACK_VERSION,
        "config": config.to_dict(),
    }
    return AugmentResult(
        pairs=publish_dataset(store, root, "augment-pairs", pairs, manifest),
        tasks=publish_dataset(store, root, "augment-tasks", task_rows, manifest),
        problems=len(problems),
        variants_proposed=len(batches),
        variants_kept=kept,
        variant_pairs=variant_pairs,
        refinement_pairs=len(refinement),
    )


def _problem_progress(progress: Progress, problems: list[str], base_of: dict[str, str]):
    """The pool's `on_verdict`: a line when a problem's last batch (`base_of`: batch key -> problem) is verified."""
    tally = progress.start("augment", len(problems))
    left = Counter(base_of.values())
    shapes = Counter(name for key, name in base_of.items() if not key.endswith(_REFINE))
    verified, rejected = Counter(), {}
    for name in problems:
        if not left[name]:
            tally.advance(f"{name}: no shape variants")

    def done(batch: ProblemBatch, results: list[Verdict]) -> None:
        name = base_of[batch.key]
        if batch.key.endswith(_REFINE):
            rejected[name] = f", {sum(not v.correct for v in results)}/{len(results)} breakages rejected"
        else:
            verified[name] += any(v.correct for v in results)
        left[name] -= 1
        if not left[name]:
            found = f"{verified[name]}/{shapes[name]} shapes verified" if shapes[name] else "no shape variants"
            tally.advance(f"{name}: {found}{rejected.get(name, '')}")

    return per_batch(done)


def _task(name: str, index: int, source: str, sample: dict[str, Any]) -> dict[str, Any]:
    return {
        "problem": _variant_name(name, index) if index else name,
        "base_problem": name,
        "variant": index,
        "level": sample.get("level"),
        "problem_source": source,
        "shapes": shape_sites(source),
    }


def _pair(name: str, index: int, source: str, response: str, sample: dict[str, Any]) -> dict[str, Any]:
    return {**_task(name, index, source, sample), "prompt": build_messages(source), "response": response}


def _breakages(name: str, entry: dict[str, Any], seed: int, answers: dict[str, str]) -> list[tuple[Breakage, str]]:
    """(broken answer, the accepted answer it came from): one per kind that applies, kinds in a seeded order per problem,
    taking the problem's accepted answers in turn so several answers get broken when there are several;
    `wrong_problem` takes another problem's answer from `answers`."""
    others = {other: answer for other, answer in answers.items() if other != name}
    kinds = sorted(ALL_KINDS)
    random.Random(f"{seed}:{name}").shuffle(kinds)
    responses, found = entry["responses"], []
    for index, kind in enumerate(kinds):
        turn = index % len(responses)
        for response in responses[turn:] + responses[:turn]:
            broken = break_response(response, entry["sample"]["problem_source"], [kind], others)
            if broken:
                found.append((broken[0], response))
                break
    return found


def _refinement_rows(
    name: str,
    entry: dict[str, Any],
    found: list[tuple[Breakage, str]],
    verdicts: list[Verdict],
    limit: int,
    tally: dict[str, Counter],
) -> list[dict[str, Any]]:
    """Up to `limit` rows of broken answers the verifier rejected for the answer's own faults (not the environment's)."""
    source, rows = entry["sample"]["problem_source"], []
    for (breakage, fixed), verdict in zip(found, verdicts):
        tally["proposed"][breakage.kind] += 1
        if verdict.correct or any(r.code.layer in _VARIANT_BROKEN for r in verdict.reasons) or len(rows) == limit:
            continue
        tally["kept"][breakage.kind] += 1
        tally["reasons"].update(r.code.value for r in verdict.reasons)
        conversation = refinement_messages(build_messages(source), breakage.response, verdict)
        rows.append({**_task(name, 0, source, entry["sample"]), "prompt": conversation, "response": fixed})
    return rows
