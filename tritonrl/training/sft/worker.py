"""One SFT training process: HF Trainer over pre-tokenized data, started by torchrun or the DeepSpeed launcher.

tritonrl/stages/sft.py prepares everything that needs the project (dataset,
tokenization, eval split, output layout) and writes a JSON spec; every rank
runs this module on that spec. It imports only torch, transformers, numpy
and tritonrl.training.models, so it runs on the GPU machine without the orchestration
stack. Rank 0 prints progress lines and writes the log history for the
parent; checkpoints get a completion marker (and, for an s3:// output, are
uploaded) only after the Trainer has written them whole.

`auto` settings: bf16 and gradient checkpointing are on with CUDA (bf16 only
where the GPU supports it; Liger's fused kernels where the package is
installed) and off on CPU, where bf16 autocast is slow and
memory is not the constraint. On CPU with several processes DDP uses gloo.

Run: `python -m torch.distributed.run --nproc_per_node N -m tritonrl.training.sft.worker --spec SPEC.json`
(the DeepSpeed launcher's extra `--local_rank` is accepted). Test: tests/stages/test_sft.py.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from tritonrl.config import SFTConfig
from tritonrl.training.models import IGNORE_INDEX, load_model, load_tokenizer
from tritonrl.training.sft import packed_attention
from tritonrl.training.sft.token_store import TokenizedExamples

CHECKPOINT_MARKER = "tritonrl-complete.json"


def _resolve_auto(value: Any, cuda: bool, supported: bool = True) -> bool:
    return (cuda and supported) if value == "auto" else bool(value)


def liger_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("liger_kernel") is not None


def _progress_callback(checkpoint_uri: str, s3_endpoint_url: str):
    """Progress lines on rank 0, and a completion marker (plus upload) for each saved checkpoint."""
    from transformers import TrainerCallback

    class Progress(TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            self.started = time.time()
            if state.is_world_process_zero:
                print(f"sft: training {state.max_steps} steps on {args.world_size} process(es)", flush=True)

        def on_log(self, args, state, control, logs=None, **kwargs):
            if not state.is_world_process_zero or not logs:
                return
            shown = {k: v for k, v in logs.items() if k in ("loss", "eval_loss", "learning_rate", "grad_norm")}
            if shown:
                values = "  ".join(f"{k} {v:.4g}" for k, v in shown.items())
                print(
                    f"sft: step {state.global_step}/{state.max_steps}  {values}  ({time.time() - self.started:.1f}s)",
                    flush=True,
                )

        def on_save(self, args, state, control, **kwargs):
            if not state.is_world_process_zero:
                return
            directory = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            marker = {"step": state.global_step, "saved": time.time()}
            (directory / CHECKPOINT_MARKER).write_text(json.dumps(marker))
            if checkpoint_uri:
                from tritonrl.artifacts.store import ArtifactStore, join

                store, uri = ArtifactStore(s3_endpoint_url), join(checkpoint_uri, directory.name)
                files = sorted(p for p in directory.rglob("*") if p.is_file() and p.name != CHECKPOINT_MARKER)
                for path in [*files, directory / CHECKPOINT_MARKER]:  # marker last
                    store.write_bytes(join(uri, path.relative_to(directory).as_posix()), path.read_bytes())
            print(f"sft: checkpoint {directory.name} saved", flush=True)

    return Progress()


def training_arguments(sft: SFTConfig, output_dir: str, deepspeed_config: str, has_eval: bool, cuda: bool):
    """TrainingArguments from the SFT config; the `auto` switches resolved for this machine."""
    import dataclasses

    import torch
    from transformers import TrainingArguments

    bf16 = _resolve_auto(sft.bf16, cuda, cuda and torch.cuda.is_bf16_supported())
    checkpointing = _resolve_auto(sft.gradient_checkpointing, cuda)
    installed = liger_installed()
    liger = _resolve_auto(sft.liger_kernel, cuda, installed)
    if liger and not installed:
        raise RuntimeError(
            "sft.liger_kernel=true but the liger-kernel package is not installed: "
            "`pip install .[gpu]` on this host, or set sft.liger_kernel=auto"
        )
    fields = {f.name for f in dataclasses.fields(TrainingArguments)}
    # Option names moved between transformers 5.x releases; use whichever this one has.
    version_dependent = {}
    if not sft.packing:
        version_dependent.update(
            {"train_sampling_strategy": "group_by_length"}
            if "train_sampling_strategy" in fields
            else {"group_by_length": True}
        )
    prefix = "activation" if "activation_checkpointing" in fields else "gradient"
    version_dependent[f"{prefix}_checkpointing"] = checkpointing
    if checkpointing:
        version_dependent[f"{prefix}_checkpointing_kwargs"] = {"use_reentrant": False}
    return TrainingArguments(
        output_dir=output_dir,
        per_device_train_batch_size=sft.batch_size,
        per_device_eval_batch_size=sft.batch_size,
        gradient_accumulation_steps=sft.grad_accumulation,
        num_train_epochs=sft.epochs,
        max_steps=sft.max_steps if sft.max_steps > 0 else -1,
        learning_rate=sft.learning_rate,
        lr_scheduler_type=sft.lr_scheduler,
        warmup_steps=sft.warmup_ratio,
        weight_decay=sft.weight_decay,
        bf16=bf16,
        eval_strategy="steps" if has_eval else "no",
        eval_steps=sft.eval_steps,
        eval_on_start=has_eval,
        prediction_loss_only=True,
        logging_steps=sft.logging_steps,
        logging_first_step=True,
        save_strategy="steps" if sft.save_steps > 0 else "no",
        save_steps=sft.save_steps if sft.save_steps > 0 else 500,
        save_total_limit=sft.save_total_limit,
        report_to="none",
        disable_tqdm=True,
        seed=sft.seed,
        data_seed=sft.seed,
        deepspeed=deepspeed_config or None,
        use_cpu=not cuda,
        ddp_backend=None if cuda else "gloo",
        ddp_find_unused_parameters=False,
        use_liger_kernel=liger,
        dataloader_num_workers=(2 if cuda else 0) if sft.dataloader_workers < 0 else sft.dataloader_workers,
        torch_compile=sft.torch_compile,
        **version_dependent,
    )


def attention_implementation(sft: SFTConfig) -> str:
    """`auto`: per-example flash attention over packed rows (no block mask), sdpa over padded batches."""
    if sft.attn_implementation == "auto":
        return packed_attention.NAME if sft.packing else "sdpa"
    if sft.attn_implementation == packed_attention.NAME and not sft.packing:
        raise ValueError(
            f"sft.attn_implementation={packed_attention.NAME} needs sft.packing=true (one packed row per batch)"
        )
    return sft.attn_implementation


def collator(tokenizer, packing: bool, attention: str):
    """Padding-free flattening (position ids keep packed sequences apart in attention) or padded batches."""
    from transformers import DataCollatorForSeq2Seq, DataCollatorWithFlattening

    if packing:
        return DataCollatorWithFlattening(
            return_position_ids=True,
            separator_id=IGNORE_INDEX,
            return_flash_attn_kwargs=attention == packed_attention.NAME,
        )
    return DataCollatorForSeq2Seq(tokenizer, padding=True, label_pad_token_id=IGNORE_INDEX)


def _cpu_threads() -> None:
    """On CPU, this process's share of the cores as its thread count, unless OMP_NUM_THREADS says otherwise.

    accelerate sets about the same when the variable is unset, with a warning a CPU run cannot act on; setting
    the variable (and torch's count, which read it at import) keeps the choice and drops the warning.
    """
    import torch

    if "OMP_NUM_THREADS" not in os.environ:
        threads = max(1, (os.cpu_count() or 1) // int(os.environ.get("LOCAL_WORLD_SIZE", 1)))
        os.environ["OMP_NUM_THREADS"] = str(threads)
        torch.set_num_threads(threads)


def train(spec: dict[str, Any]) -> None:
    import torch
    from transformers import PrinterCallback, Trainer

    sft = SFTConfig(**spec["sft"])
    cuda = torch.cuda.is_available()
    if not cuda:
        _cpu_threads()
    data = {split.name: TokenizedExamples(split) for split in Path(spec["data_dir"]).iterdir()}
    tokenizer = load_tokenizer(spec["model_source"])
    attention = attention_implementation(sft)
    packed_attention.register()
    model = load_model(spec["model_source"], attn_implementation=attention)
    model.config.use_cache = False  # no KV cache while training (and required with checkpointing)
    args = training_arguments(sft, spec["output_dir"], spec["deepspeed_config"], "eval" in data, cuda)
    trainer = Trainer(
        model=model,
        args=args,
        train_dataset=data["train"],
        eval_dataset=data["eval"] if "eval" in data else None,
        data_collator=collator(tokenizer, sft.packing, attention),
        callbacks=[_progress_callback(spec["checkpoint_uri"], spec["s3_endpoint_url"])],
    )
    trainer.remove_callback(PrinterCallback)  # raw log dicts; Progress prints readable lines instead
    if attention == packed_attention.NAME and trainer.is_world_process_zero():
        print(f"sft: packed rows attend per example: {packed_attention.kernel(cuda)}", flush=True)
    trainer.train()
    model_dir = str(Path(spec["output_dir"]) / "model")
    trainer.save_model(model_dir)
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(model_dir)
        result = {
            "log_history": trainer.state.log_history,
            "global_step": trainer.state.global_step,
            "world_size": args.world_size,
            "bf16": args.bf16,
            "gradient_checkpointing": _resolve_auto(sft.gradient_checkpointing, cuda),
            "liger_kernel": args.use_liger_kernel,
            "attn_implementation": attention,
        }
        Path(spec["result_file"]).write_text(json.dumps(result, indent=2))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", required=True, help="JSON spec written by tritonrl.stages.sft.run")
    parser.add_argument("--local_rank", "--local-rank", type=int, default=-1, help="set by the DeepSpeed launcher")
    args = parser.parse_args(argv)
    train(json.loads(Path(args.spec).read_text()))


if __name__ == "__main__":
    main()
