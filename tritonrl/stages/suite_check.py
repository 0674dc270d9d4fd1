"""Check that every reference answer of a problem set is correct, at its own and its alternate shapes.

A problem set whose known-good answers fail would poison everything built
on it (distillation, SFT targets, the tiny demo), so this is the first thing
the pipeline runs, through the full verifier (static layer, sandbox,
anti-hack runtime checks). Writes a JSON report and the resolved config
under the artifact root and returns the report's URI.

Run: `tritonrl run --profile tiny` (today's main job). Test: tests/problems/test_builtin_suite.py.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

from tritonrl.artifacts.store import ArtifactStore, join, utc_stamp
from tritonrl.config import Config, dump_config
from tritonrl.problems import Problem, load_problems
from tritonrl.problems.shapes import with_shapes
from tritonrl.stages.progress import SILENT, Progress
from tritonrl.verify.verifier import Verifier, VerifierSettings


@dataclass(frozen=True)
class ShapeCheck:
    problem: str
    shapes: dict[str, int]
    correct: bool
    max_abs_error: float
    seconds: float
    message: str


def check_reference(verifier: Verifier, problem: Problem, shapes: dict[str, int]) -> ShapeCheck:
    """Verify the problem's reference answer at `shapes` (empty: the problem's own)."""
    source = with_shapes(problem.source, shapes) if shapes else problem.source
    started = time.perf_counter()
    verdict = verifier.verify(source, problem.reference_response or "")
    return ShapeCheck(
        problem.name,
        verdict.shapes,
        verdict.correct,
        verdict.max_abs_error if verdict.max_abs_error is not None else float("nan"),
        time.perf_counter() - started,
        "; ".join(f"{r.code.value}: {r.message}" for r in verdict.reasons) or "ok",
    )


def run(config: Config, progress: Progress = SILENT) -> tuple[str, list[ShapeCheck]]:
    """Check every problem with a reference answer; returns (report URI, checks)."""
    problems = load_problems(config.problems.source, config.problems.levels, config.problems.limit)
    answered = [problem for problem in problems if problem.reference_response is not None]
    checks = []
    tally = progress.start("suite-check", len(answered))
    with Verifier(VerifierSettings.from_config(config.verify)) as verifier:
        for problem in answered:
            mine = [
                check_reference(verifier, problem, shapes)
                for shapes in (({}, problem.alt_shapes) if problem.alt_shapes else ({},))
            ]
            checks += mine
            tally.advance(f"{problem.name}: {sum(c.correct for c in mine)}/{len(mine)} shapes correct")

    stamp = utc_stamp()
    out = join(config.artifact_root, "suite-check", stamp)
    store = ArtifactStore.of(config.storage)
    store.write_text(join(out, "config.yaml"), dump_config(config))
    report = {
        "source": config.problems.source,
        "device": config.verify.device,
        "checked": len(checks),
        "correct": sum(c.correct for c in checks),
        "checks": [asdict(c) for c in checks],
    }
    report_uri = join(out, "report.json")
    store.write_text(report_uri, json.dumps(report, indent=2))
    return report_uri, checks
