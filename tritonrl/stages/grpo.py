"""The GRPO stage: HRD-GRPO on the augmented task set, rewarded by the verifier.

Each step samples `grpo.tasks_per_step` tasks and draws `grpo.group_size`
responses per task from the current policy (transformers generation with
the KV cache, or an OpenAI-compatible server that serves the policy), judges
all of them in one verifier-pool batch, turns verdicts into (r_code, r_plan)
and per-class group-relative advantages (tritonrl/training/grpo/hrd.py), and applies
`grpo.updates_per_batch` clipped policy-gradient updates of α·J_plan + J_code
(optionally with a KL penalty to the frozen starting model). Every step
logs mean reward per class, correctness, speed-up, KL, clip fraction,
response length and the time split (generate / verify / update).
With `grpo.turns` > 1 each response starts a trajectory: an answer not yet
done gets the verifier's feedback and is asked again, returns are
discounted over later turns (`grpo.turn_discount`), advantages are relative
to the trajectories at the same turn, and each step also logs per turn how
many trajectories reached it, their rewards and correct@t.

`run` reads the tasks and resolves the model, prepares the output, trains
(tritonrl/training/grpo/worker.py) and publishes. One process (`grpo.nproc_per_node`
= `grpo.nnodes` = 1, the default) trains right here, the policy on `cuda:0`
when there is a GPU, its verifier pool on every GPU. More processes are
data parallel: torchrun starts the worker on every process
(tritonrl/training/launch.py, as SFT does; one process per GPU, each verifying on its
own GPU, gloo on CPU), `tasks_per_step` is the global batch split over the
processes, and one update equals the single-process update on the same
rollouts. Every process holds a full replica of the policy (no sharding).

The output URI gets `model/` (transformers format), `checkpoint-N/` every
`grpo.save_steps`, `history.jsonl`, `config.yaml`, and `manifest.json`
last, only once every process has finished — the same layout as SFT, so
`resolve_model_source` loads either.

Run: `tritonrl grpo --tasks <augment-tasks URI> --model <SFT output URI>`.
Test: tests/stages/test_grpo.py, tests/training/test_grpo_distributed.py; learning evidence: bench/grpo_learning.py.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from tritonrl.artifacts.datasets_io import DatasetError, read_manifest, read_rows
from tritonrl.artifacts.store import ArtifactStore, join, utc_stamp
from tritonrl.artifacts.training_output import prepare_output, publish_output
from tritonrl.config import Config, dump_config
from tritonrl.training.grpo import worker as grpo_worker
from tritonrl.training.launch import TrainingError, run_launcher, torchrun_command
from tritonrl.training.models import MODEL_DIR, load_tokenizer, resolve_model_source

INPUT_KIND = "the tasks dataset the augment stage printed (…/augment-tasks-<digest>)"
TASKS_FILE = "grpo-tasks.json"  # the task rows handed to a launched worker; removed once training ends


class GRPOError(TrainingError):
    """GRPO cannot start or continue as configured."""


@dataclass(frozen=True)
class GRPOResult:
    output_uri: str
    model_uri: str
    steps: int
    world_size: int
    history: list[dict]
    seconds: float


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _check_config(config: Config) -> None:
    problems = config.grpo.mistakes()
    if problems:
        raise GRPOError("; ".join(problems))


def _load_tasks(store: ArtifactStore, tasks_uri: str, world: int) -> list[dict]:
    tasks = read_rows(
        store,
        tasks_uri,
        {"problem", "problem_source"},
        INPUT_KIND,
        "has no tasks; pass the augment-tasks dataset the augment stage printed",
    )
    if len(tasks) < world:
        raise DatasetError(
            f"{tasks_uri} has {len(tasks)} task(s), fewer than the {world} GRPO processes: every "
            "process needs a task each step; use fewer processes (grpo.nproc_per_node, grpo.nnodes)"
        )
    return tasks


def _launch(config: Config, tasks: list[dict], model_source: str, work: Path, on_log: Callable[[str], None]) -> None:
    """The worker on every process through torchrun; the spec and the tasks go through files in `work`."""
    (work / TASKS_FILE).write_text(json.dumps(tasks))
    spec = {
        "config_file": str(work / "config.yaml"),
        "tasks_file": str(work / TASKS_FILE),
        "model_source": model_source,
        "output_dir": str(work),
    }
    spec_path = work / "grpo-spec.json"
    spec_path.write_text(json.dumps(spec, indent=2))
    command = torchrun_command("grpo", config.grpo, "tritonrl.training.grpo.worker", spec_path, GRPOError)
    on_log("grpo: " + " ".join(command))
    run_launcher(command, work, on_log, GRPOError)
    (work / TASKS_FILE).unlink()


def run(
    config: Config,
    tasks_uri: str,
    model: str | None = None,
    out_uri: str | None = None,
    on_log: Callable[[str], None] = _stderr,
) -> GRPOResult:
    """Train `model` (default: student.base_model; usually the SFT output URI) with HRD-GRPO on `tasks_uri`."""
    started = time.time()
    _check_config(config)
    g = config.grpo
    world = g.nproc_per_node * g.nnodes
    store = ArtifactStore.of(config.storage)
    tasks = _load_tasks(store, tasks_uri, world)
    model_name = model or config.student.base_model
    source = resolve_model_source(model_name, config.home, config.storage.s3_endpoint_url)
    load_tokenizer(source)  # a model that cannot load fails here, before an output exists

    stamp = utc_stamp()
    out_uri = out_uri or join(config.artifact_root, "checkpoints", f"grpo-{stamp}")
    local, work = prepare_output(config, store, out_uri, GRPOError)
    (work / "config.yaml").write_text(dump_config(config))
    on_log(
        f"grpo: {len(tasks)} tasks, {g.steps} steps × {g.tasks_per_step} tasks × {g.group_size} samples "
        f"{f'(up to {g.turns} turns) ' if g.turns > 1 else ''}from {model_name}, {world} process(es)"
    )
    if world == 1:
        grpo_worker.train(config, tasks, source, work, on_log)
    else:
        _launch(config, tasks, source, work, on_log)

    history = [json.loads(line) for line in (work / grpo_worker.HISTORY_FILE).read_text().splitlines()]
    result = GRPOResult(
        out_uri, join(out_uri, MODEL_DIR), len(history), world, history, round(time.time() - started, 1)
    )
    manifest = {
        "stage": "grpo",
        "tasks": tasks_uri,
        "tasks_digest": read_manifest(store, tasks_uri).get("digest"),
        "start_model": model_name,
        **{k: v for k, v in asdict(result).items() if k != "output_uri"},
    }
    publish_output(config, store, out_uri, local, work, manifest)
    on_log(f"grpo: done in {result.seconds:.0f}s; model → {result.model_uri}")
    return result
