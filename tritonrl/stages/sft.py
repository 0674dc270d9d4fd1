"""The SFT stage: fine-tune the student on the augmented (prompt, response) pairs; final model to an output URI.

`run` reads top to bottom: read the dataset → resolve the base model →
tokenize (loss on response tokens only; over-long rows dropped, not
truncated, so every trained response ends with its end-of-turn marker) →
hold out an eval split → launch the training worker (tritonrl/training/sft/worker.py,
HF Trainer) through `torchrun` (tritonrl/training/launch.py) or the DeepSpeed launcher as a subprocess →
publish. Always a subprocess, even for one CPU process, so the path a test
takes on 1 or 2 CPU processes is the path 8 GPUs take.

Training writes to a local directory: the output itself for a local URI,
a staging directory under $TRITONRL_HOME/runs for s3://, uploaded when done.
The output's `manifest.json` (loss curves, counts, config) is written last,
after the final model; a run that fails or is interrupted leaves no manifest,
and loaders (tritonrl/training/models.py) refuse an output without one.

Run: `tritonrl sft --input <augment-pairs URI>`. Test: tests/stages/test_sft.py.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from tritonrl.artifacts.datasets_io import DatasetError, read_manifest, read_rows
from tritonrl.artifacts.store import ArtifactStore, join, utc_stamp
from tritonrl.artifacts.training_output import prepare_output, publish_output
from tritonrl.config import Config, dump_config
from tritonrl.training.launch import TrainingError, run_launcher, torchrun_command
from tritonrl.training.models import MODEL_DIR, Example, encode_example, load_tokenizer, resolve_model_source
from tritonrl.training.sft.token_store import save_examples
from tritonrl.training.sft.worker import CHECKPOINT_MARKER

DEEPSPEED_CONFIGS = Path(__file__).resolve().parents[1] / "training" / "sft" / "deepspeed"  # package data
INPUT_KIND = "the pairs dataset the augment stage printed (…/augment-pairs-<digest>)"
RESULT_FILE = "train-result.json"  # the worker's log history, read back by `run`


class SFTError(TrainingError):
    """Training could not start or did not finish; no output was published as complete."""


@dataclass(frozen=True)
class SFTResult:
    output_uri: str
    model_uri: str
    checkpoints: list[str]
    train_rows: int
    eval_rows: int
    dropped_rows: int  # longer than sft.max_seq_len
    train_tokens: int  # per epoch, prompt and response
    steps: int
    world_size: int
    loss_curve: list[tuple[int, float]]  # (step, training loss)
    eval_curve: list[tuple[int, float]]  # (step, eval loss); step 0 is before training
    seconds: float


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def deepspeed_config_path(name: str) -> str:
    """`""` → no DeepSpeed; `zero2`/`zero3` → tritonrl/training/sft/deepspeed/<name>.json; anything else is a JSON path."""
    if not name:
        return ""
    path = DEEPSPEED_CONFIGS / f"{name}.json" if name in ("zero2", "zero3") else Path(name)
    if not path.is_file():
        raise SFTError(f"sft.deepspeed={name!r}: no DeepSpeed config at {path}; use '', zero2, zero3 or a JSON file")
    return str(path.resolve())


def tokenize_pairs(tokenizer, rows: list[dict], max_seq_len: int) -> tuple[list[Example], int]:
    """Rows with `prompt` (chat messages: one turn, or a conversation ending in feedback) and `response` to training
    examples, the loss on `response` alone; returns them and the dropped count."""
    examples, dropped = [], 0
    for row in rows:
        example = encode_example(tokenizer, row["prompt"], row["response"])
        if len(example.input_ids) > max_seq_len:
            dropped += 1
            continue
        examples.append(example)
    return examples, dropped


def split_eval(examples: list[Example], fraction: float, seed: int) -> tuple[list[Example], list[Example]]:
    """A seeded random hold-out; at least one eval row when asked for any and two rows exist."""
    if fraction <= 0 or len(examples) < 2:
        return examples, []
    order = list(range(len(examples)))
    random.Random(seed).shuffle(order)
    count = min(len(examples) - 1, max(1, round(len(examples) * fraction)))
    held = set(order[:count])
    return [e for i, e in enumerate(examples) if i not in held], [examples[i] for i in sorted(held)]


def launch_command(config: Config, spec_path: Path) -> list[str]:
    """torchrun (or the DeepSpeed launcher) running tritonrl.training.sft.worker on every process."""
    sft = config.sft
    if sft.launcher == "deepspeed":
        return [
            sys.executable,
            "-m",
            "deepspeed.launcher.runner",
            f"--num_gpus={sft.nproc_per_node}",
            f"--num_nodes={sft.nnodes}",
            "--module",
            "tritonrl.training.sft.worker",
            "--spec",
            str(spec_path),
        ]
    return torchrun_command("sft", sft, "tritonrl.training.sft.worker", spec_path, SFTError)


def run(
    config: Config, input_uri: str, out_uri: str | None = None, on_log: Callable[[str], None] = _stderr
) -> SFTResult:
    started = time.time()
    problems = config.sft.mistakes()  # before an output exists: a fixed rerun may use the same --out
    if problems:
        raise SFTError("; ".join(problems))
    store = ArtifactStore.of(config.storage)
    source_manifest = read_manifest(store, input_uri, INPUT_KIND)
    rows = read_rows(
        store,
        input_uri,
        {"prompt", "response"},
        INPUT_KIND,
        "has no rows: SFT needs (prompt, response) pairs; did the filter accept nothing?",
    )

    model_source = resolve_model_source(config.student.base_model, config.home, config.storage.s3_endpoint_url)
    tokenizer = load_tokenizer(model_source)
    examples, dropped = tokenize_pairs(tokenizer, rows, config.sft.max_seq_len)
    if not examples:
        raise DatasetError(
            f"all {len(rows)} rows of {input_uri} are longer than sft.max_seq_len={config.sft.max_seq_len} tokens"
        )
    train, held_out = split_eval(examples, config.sft.eval_fraction, config.sft.seed)
    on_log(
        f"sft: {len(train)} train / {len(held_out)} eval examples ({dropped} dropped as too long), "
        f"base model {config.student.base_model}"
    )

    stamp = utc_stamp()
    out_uri = out_uri or join(config.artifact_root, "checkpoints", f"sft-{source_manifest['digest'][7:19]}-{stamp}")
    local, work = prepare_output(config, store, out_uri, SFTError)

    data_dir = work / "tokenized"
    save_examples(train, data_dir / "train")
    if held_out:
        save_examples(held_out, data_dir / "eval")
    (work / "config.yaml").write_text(dump_config(config))
    spec = {
        "model_source": model_source,
        "data_dir": str(data_dir),
        "output_dir": str(work),
        "result_file": str(work / RESULT_FILE),
        "sft": asdict(config.sft),
        "deepspeed_config": deepspeed_config_path(config.sft.deepspeed),
        "checkpoint_uri": "" if local else out_uri,
        "s3_endpoint_url": config.storage.s3_endpoint_url,
    }
    spec_path = work / "sft-spec.json"
    spec_path.write_text(json.dumps(spec, indent=2))
    command = launch_command(config, spec_path)
    on_log("sft: " + " ".join(command))
    run_launcher(command, work, on_log, SFTError)

    result = json.loads((work / RESULT_FILE).read_text())
    history = result["log_history"]
    loss_curve = [(h["step"], h["loss"]) for h in history if "loss" in h]
    eval_curve = [(h["step"], h["eval_loss"]) for h in history if "eval_loss" in h]
    checkpoints = sorted(p.name for p in work.glob("checkpoint-*") if (p / CHECKPOINT_MARKER).is_file())
    shutil.rmtree(data_dir)
    summary = SFTResult(
        output_uri=out_uri,
        model_uri=join(out_uri, MODEL_DIR),
        checkpoints=[join(out_uri, name) for name in checkpoints],
        train_rows=len(train),
        eval_rows=len(held_out),
        dropped_rows=dropped,
        train_tokens=sum(len(e.input_ids) for e in train),
        steps=result["global_step"],
        world_size=result["world_size"],
        loss_curve=loss_curve,
        eval_curve=eval_curve,
        seconds=round(time.time() - started, 1),
    )
    manifest = {
        "stage": "sft",
        "input": input_uri,
        "input_digest": source_manifest["digest"],
        "base_model": config.student.base_model,
        **{k: v for k, v in asdict(summary).items() if k not in ("output_uri",)},
        "bf16": result["bf16"],
        "gradient_checkpointing": result["gradient_checkpointing"],
        "liger_kernel": result["liger_kernel"],
        "attn_implementation": result["attn_implementation"],
    }
    # Checkpoints were uploaded by the worker as they were saved.
    publish_output(config, store, out_uri, local, work, manifest, skip={p.name for p in work.glob("checkpoint-*")})
    on_log(f"sft: done in {summary.seconds:.0f}s; model → {summary.model_uri}")
    return summary
