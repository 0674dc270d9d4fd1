"""Where one SFT training step of a Qwen3-0.6B-shaped model spends its GPU time, outside the Trainer.

bench/train_throughput_gpu.py measures the SFT stage end to end; this
isolates the step it runs (fp32 weights under bf16 autocast, fused AdamW, as
HF Trainer does) on one 4×4096 batch, to tell what the next speed-up is:
with and without Liger's kernels, with a padding attention mask (what a
padded batch gets) and without any mask (sdpa's causal flash path), and with
bf16 weights. Prints ms per step, model FLOPs utilisation and the top CUDA
kernels of the first variant.

GPU host: PYTHONPATH=. python3 -m bench.sft_step_profile --out profile.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.train_throughput_gpu import PEAK_FLOPS, QWEN3_06B


def step_time(variant: dict, batch: int, seq: int, steps: int, profile: bool) -> dict:
    import torch
    from transformers import AutoModelForCausalLM, Qwen3Config

    torch.manual_seed(0)
    dtype = torch.bfloat16 if variant["bf16_weights"] else torch.float32
    model = AutoModelForCausalLM.from_config(Qwen3Config(**QWEN3_06B), attn_implementation="sdpa", dtype=dtype).cuda()
    if variant["liger"]:
        from liger_kernel.transformers import _apply_liger_kernel_to_instance

        _apply_liger_kernel_to_instance(model=model)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
    ids = torch.randint(0, QWEN3_06B["vocab_size"], (batch, seq), device="cuda")
    mask = torch.ones_like(ids)
    mask[0, -7:] = 0  # one padded row: the batch needs an attention mask, as a padded real batch does
    inputs = {"input_ids": ids, "labels": ids.masked_fill(mask == 0, -100)}
    if variant["mask"]:
        inputs["attention_mask"] = mask

    def one_step() -> None:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(**inputs).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for _ in range(3):
        one_step()
    torch.cuda.synchronize()
    started = time.perf_counter()
    for _ in range(steps):
        one_step()
    torch.cuda.synchronize()
    seconds = (time.perf_counter() - started) / steps
    params = sum(p.numel() for p in model.parameters())
    flops = (
        batch
        * seq
        * (
            6 * params
            + 12 * QWEN3_06B["num_hidden_layers"] * QWEN3_06B["num_attention_heads"] * QWEN3_06B["head_dim"] * seq
        )
    )
    result = {
        **variant,
        "ms_per_step": round(seconds * 1e3, 1),
        "tokens_per_s": round(batch * seq / seconds),
        "mfu": round(flops / seconds / PEAK_FLOPS, 4),
        "peak_memory_gb": round(torch.cuda.max_memory_allocated() / 1e9, 1),
    }
    if profile:
        from torch.profiler import ProfilerActivity
        from torch.profiler import profile as torch_profile

        with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
            one_step()
            torch.cuda.synchronize()
        result["top_kernels"] = prof.key_averages().table(
            sort_by="cuda_time_total", row_limit=18, max_name_column_width=70
        )
    model = optimizer = None  # released before empty_cache (one_step shares these variables)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--seq", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    variants = [
        {
            "name": "liger, padding mask (the SFT stage's padded batches)",
            "liger": True,
            "mask": True,
            "bf16_weights": False,
        },
        {"name": "liger, no mask (causal flash attention)", "liger": True, "mask": False, "bf16_weights": False},
        {"name": "no liger, padding mask", "liger": False, "mask": True, "bf16_weights": False},
        {"name": "no liger, no mask", "liger": False, "mask": False, "bf16_weights": False},
        {"name": "liger, no mask, bf16 weights", "liger": True, "mask": False, "bf16_weights": True},
    ]
    results = []
    for index, variant in enumerate(variants):
        result = step_time(variant, args.batch, args.seq, args.steps, profile=index < 2)
        results.append(result)
        print(json.dumps({k: v for k, v in result.items() if k != "top_kernels"}), flush=True)
        if "top_kernels" in result:
            print(result["top_kernels"], flush=True)
        Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
