"""SFT throughput (tokens/s, MFU) and the GRPO step split for a Qwen3-0.6B-shaped model, through the real stages.

Training speed on a GPU: a model with Qwen3-0.6B's shape and random
weights (shape is what matters for speed) is saved with the tiny tokenizer
and trained by `tritonrl.stages.sft.run` (torchrun, HF Trainer, the configured
bf16/packing/checkpointing) on long synthetic pairs; tokens/s come from the
trainer's own runtime, MFU = (6·N + 12·L·d·T) FLOPs per token × tokens/s
over the measured ~790 TFLOP/s bf16 peak of an H200. Then a few
`tritonrl.stages.grpo.run` steps on the built-in tasks give the generate / verify /
update split (random weights write no kernels, so verification is the
cheap path — bench/verifier_throughput.py measures real verdicts — and
every reward is 0; a KL penalty, grpo.kl_coef=0.01, keeps the update from
being skipped for lack of signal, so the update is timed in full).
`--small` swaps in a tiny shape to check the script on a CPU.

Throughput is the steady state: tokens between the first logged step after
`--warmup` and the last, over the time between them (the progress lines'
clock), so start-up, first-step compilation and autotuning are not counted.

GPU host (needs pyarrow; carry its wheel, and deepspeed's for --deepspeed):
    PYTHONPATH=. python3 -m bench.train_throughput_gpu --out results.json [--liger true] [--nproc 2 --deepspeed zero3]
bench/train_throughput_h200.sh runs the recorded set of configurations.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
from pathlib import Path

PEAK_FLOPS = 790e12  # bf16 dense matmul, measured on the H200 (DESIGN §7)
QWEN3_06B = dict(
    vocab_size=151936,
    hidden_size=1024,
    intermediate_size=3072,
    num_hidden_layers=28,
    num_attention_heads=16,
    num_key_value_heads=8,
    head_dim=128,
    tie_word_embeddings=True,
)
SMALL = dict(
    vocab_size=4096,
    hidden_size=128,
    intermediate_size=256,
    num_hidden_layers=2,
    num_attention_heads=4,
    num_key_value_heads=2,
    head_dim=32,
    tie_word_embeddings=True,
)


def build_model(directory: Path, shape: dict, home: Path) -> int:
    """Save a random model of `shape` with the tiny tokenizer; returns its parameter count."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer, Qwen3Config

    from tritonrl.training.tiny_model import ensure_tiny_model

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(Qwen3Config(max_position_embeddings=32768, **shape))
    model.save_pretrained(directory)
    AutoTokenizer.from_pretrained(ensure_tiny_model(home / "models")).save_pretrained(directory)
    return sum(p.numel() for p in model.parameters())


def long_pairs(seq_len: int, tokenizer) -> list[dict]:
    """Built-in prompts with their answers repeated to fill about `seq_len` tokens."""
    from tritonrl.problems import load_problems
    from tritonrl.prompts import build_messages
    from tritonrl.training.models import encode_prompt

    rows = []
    for p in load_problems("builtin"):
        messages = build_messages(p.source)
        room = seq_len - len(encode_prompt(tokenizer, messages)) - 8
        repeats = room // len(tokenizer(p.reference_response, add_special_tokens=False)["input_ids"])
        if repeats >= 1:
            rows.append({"problem": p.name, "prompt": messages, "response": p.reference_response * repeats})
    return rows


STEP_LINE = re.compile(r"sft: step (\d+)/\d+ .*\(([\d.]+)s\)$")


def steady_state(lines: list[str], warmup: int) -> tuple[int, float]:
    """(steps, seconds) between the first logged step at or after `warmup` and the last logged step."""
    points = [(int(m.group(1)), float(m.group(2))) for m in map(STEP_LINE.search, lines) if m]
    points = sorted({step: t for step, t in points}.items())
    start = next((p for p in points if p[0] >= warmup), None)
    if start is None or points[-1][0] <= start[0]:
        raise SystemExit(f"too few logged steps after --warmup {warmup}: {points}")
    return points[-1][0] - start[0], points[-1][1] - start[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10, help="steps left out of the steady-state throughput")
    parser.add_argument("--seq", type=int, default=4096, help="tokens per packed row (sft.max_seq_len)")
    parser.add_argument("--batch", type=int, default=4, help="sft.batch_size per process")
    parser.add_argument("--nproc", type=int, default=1, help="processes (GPUs) for SFT and the GRPO steps")
    parser.add_argument("--deepspeed", default="", help="'', zero2 or zero3")
    parser.add_argument("--checkpointing", default="false", help="sft.gradient_checkpointing: auto, true, false")
    parser.add_argument("--packing", default="true", help="sft.packing: true (padding-free flattening) or false")
    parser.add_argument("--liger", default="false", help="sft.liger_kernel: auto, true, false")
    parser.add_argument("--compile", action="store_true", help="sft.torch_compile")
    parser.add_argument("--attn", default="auto", help="sft.attn_implementation")
    parser.add_argument(
        "--grpo-steps", type=int, default=0, help="GRPO steps after SFT for the step time split (0: none)"
    )
    parser.add_argument("--small", action="store_true", help="a tiny shape, to check the script on CPU")
    args = parser.parse_args()

    home = Path(tempfile.mkdtemp(prefix="tritonrl-throughput-"))
    os.environ["TRITONRL_HOME"] = str(home)
    import torch

    from tritonrl.artifacts.datasets_io import publish_dataset
    from tritonrl.artifacts.store import ArtifactStore, local_path
    from tritonrl.config import load_config
    from tritonrl.problems import load_problems
    from tritonrl.stages import grpo, sft
    from tritonrl.training.models import load_tokenizer

    shape = SMALL if args.small else QWEN3_06B
    model_dir = home / "qwen3-0.6b-shape"
    params = build_model(model_dir, shape, home)
    profile = "tiny" if args.small or not torch.cuda.is_available() else "gpu"
    overrides = [
        f"student.base_model={model_dir}",
        f"sft.max_steps={args.steps}",
        f"sft.max_seq_len={args.seq}",
        f"sft.batch_size={args.batch}",
        "sft.grad_accumulation=1",
        f"sft.packing={args.packing}",
        "sft.eval_fraction=0",
        "sft.save_steps=0",
        "sft.logging_steps=5",
        f"sft.deepspeed={args.deepspeed}",
        f"sft.nproc_per_node={args.nproc}",
        f"sft.gradient_checkpointing={args.checkpointing}",
        "sft.lr_scheduler=constant",
        "sft.warmup_ratio=0",
        f"sft.liger_kernel={args.liger}",
        f"sft.torch_compile={str(args.compile).lower()}",
        f"sft.attn_implementation={args.attn}",
        f"grpo.steps={args.grpo_steps}",
        "grpo.group_size=8",
        "grpo.tasks_per_step=4",
        "grpo.max_new_tokens=1024",
        f"grpo.nproc_per_node={args.nproc}",
        "grpo.micro_batch=8",
        "grpo.kl_coef=0.01",
        "problems.source=builtin",
        "teacher.kind=reference",
    ]
    config, _ = load_config(profile, overrides=overrides)
    store = ArtifactStore()
    pairs = publish_dataset(
        store,
        f"{config.artifact_root}/datasets",
        "augment-pairs",
        long_pairs(args.seq, load_tokenizer(str(model_dir))),
        {"stage": "bench"},
    )
    started, lines = time.time(), []

    def log(line: str) -> None:
        lines.append(line)
        print(line, flush=True)

    result = sft.run(config, pairs.uri, on_log=log)
    manifest = json.loads((local_path(result.output_uri) / "manifest.json").read_text())
    steps, seconds = steady_state(lines, args.warmup)
    tokens_per_step = result.train_tokens / result.train_rows * args.batch * args.nproc
    tokens_per_s = tokens_per_step * steps / seconds
    attention_width = shape["num_attention_heads"] * shape["head_dim"]
    flops_per_token = (
        6 * params + 12 * shape["num_hidden_layers"] * attention_width * result.train_tokens / result.train_rows
    )
    report = {
        "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu",
        "gpus": args.nproc,
        "torch": torch.__version__,
        "params": params,
        "shape": shape,
        "args": vars(args),
        "sft": {
            "steps": result.steps,
            "tokens_per_step": round(tokens_per_step),
            "steady_steps": steps,
            "steady_seconds": seconds,
            "tokens_per_s": round(tokens_per_s),
            "tokens_per_s_per_gpu": round(tokens_per_s / args.nproc),
            "mfu": round(flops_per_token * tokens_per_s / PEAK_FLOPS / args.nproc, 4),
            "flops_per_token": flops_per_token,
            "bf16": manifest["bf16"],
            "liger_kernel": manifest["liger_kernel"],
            "gradient_checkpointing": manifest["gradient_checkpointing"],
            "stage_seconds": round(time.time() - started, 1),
            "loss_curve": result.loss_curve,
        },
    }
    Path(args.out).write_text(json.dumps(report, indent=2))
    print(json.dumps(report["sft"]), flush=True)
    if args.grpo_steps:
        tasks = publish_dataset(
            store,
            f"{config.artifact_root}/datasets",
            "augment-tasks",
            [{"problem": p.name, "problem_source": p.source} for p in load_problems("builtin")],
            {"stage": "bench"},
        )
        trained = grpo.run(config, tasks.uri, model=result.output_uri, on_log=lambda line: print(line, flush=True))
        report["grpo"] = [
            {k: h[k] for k in ("step", "generate_s", "verify_s", "update_s", "response_tokens")}
            for h in trained.history
        ]
        Path(args.out).write_text(json.dumps(report, indent=2))
        print(json.dumps(report["grpo"]), flush=True)


if __name__ == "__main__":
    main()
