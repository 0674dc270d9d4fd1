"""The distill stage: a teacher writes N reasoning + Triton answers per problem.

Reads the configured problem set, prompts the teacher (tritonrl/prompts.py,
versioned) for `teacher.samples_per_task` samples per problem, and publishes
every sample — prompt, response, teacher id, sampling parameters, latency,
tokens, and the error when a request failed — as a dataset. Resumable: each
problem's samples are saved under the state directory as soon as they are
complete (atomically), keyed by problem, teacher, prompt version and
sampling parameters; a rerun skips those and never a half-finished problem.
A teacher failure is recorded as a sample with `error` set, never a crash.

Run: `tritonrl distill --profile tiny`. Test: tests/stages/test_data_stages.py.
"""

from __future__ import annotations

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from tritonrl.artifacts.datasets_io import PublishedDataset, publish_dataset
from tritonrl.artifacts.store import ArtifactStore, join
from tritonrl.config import Config
from tritonrl.generation import Teacher, build_teacher
from tritonrl.problems import Problem, load_problems
from tritonrl.prompts import PROMPT_VERSION, build_messages
from tritonrl.stages.progress import SILENT, Progress

PROBLEM_WORKERS = 4  # problems prompted at once; each teacher bounds its own request concurrency


@dataclass(frozen=True)
class DistillResult:
    dataset: PublishedDataset
    problems: int
    samples: int
    failures: int
    resumed_problems: int


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _problem_samples(problem: Problem, teacher: Teacher, config: Config) -> list[dict[str, Any]]:
    messages = build_messages(problem.source)
    completions = teacher.generate(
        problem, messages, config.teacher.samples_per_task, config.teacher.temperature, config.teacher.max_tokens
    )
    return [
        {
            "problem": problem.name,
            "level": problem.level,
            "problem_source": problem.source,
            "sample": index,
            "prompt": messages,
            "response": completion.text,
            "error": completion.error,
            "teacher": teacher.id,
            "temperature": config.teacher.temperature,
            "max_tokens": config.teacher.max_tokens,
            "prompt_version": PROMPT_VERSION,
            "latency_s": completion.latency_s,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "attempts": completion.attempts,
        }
        for index, completion in enumerate(completions)
    ]


def run(
    config: Config,
    out_root: str | None = None,
    teacher: Teacher | None = None,
    progress: Progress = SILENT,
) -> DistillResult:
    """Distil every problem of `config.problems`; returns the published dataset and counts."""
    problems = load_problems(config.problems.source, config.problems.levels, config.problems.limit)
    teacher = teacher or build_teacher(config.teacher)
    store = ArtifactStore.of(config.storage)
    sampling = (
        teacher.id,
        PROMPT_VERSION,
        config.teacher.samples_per_task,
        config.teacher.temperature,
        config.teacher.max_tokens,
    )
    work = config.home / "work" / "distill" / _key(sampling)
    resumed = 0
    tally = progress.start("distill", len(problems))

    def one(problem: Problem) -> list[dict[str, Any]]:
        nonlocal resumed
        done = work / f"{_key(problem.name, problem.source)}.json"
        saved = done.is_file()
        if saved:
            resumed += 1
            samples = json.loads(done.read_text())
        else:
            samples = _problem_samples(problem, teacher, config)
            store.write_text(str(done), json.dumps(samples))
        failed = sum(s["error"] is not None for s in samples)
        tally.advance(
            f"{problem.name}: {len(samples) - failed}/{len(samples)} samples answered"
            f"{', from an earlier run' if saved else ''}"
        )
        return samples

    with ThreadPoolExecutor(max_workers=PROBLEM_WORKERS) as pool:
        records = [sample for samples in pool.map(one, problems) for sample in samples]
    failures = sum(r["error"] is not None for r in records)
    manifest = {
        "stage": "distill",
        "counts": {"problems": len(problems), "samples": len(records), "failures": failures},
        "teacher": teacher.id,
        "prompt_version": PROMPT_VERSION,
        "config": config.to_dict(),
    }
    dataset = publish_dataset(store, out_root or join(config.artifact_root, "datasets"), "distill", records, manifest)
    return DistillResult(dataset, len(problems), len(records), failures, resumed)
