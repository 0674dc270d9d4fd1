"""The GRPO stage: HRD-GRPO on the augmented task set, rewarded by the verifier.

Each step samples `grpo.tasks_per_step` tasks and draws `grpo.group_size`
responses per task from the current policy (transformers generation with
the KV cache, or an OpenAI-compatible server that serves the policy), judges
all of them in one verifier-pool batch, turns verdicts into (r_code, r_plan)
and per-class group-relative advantages (tritonrl/hrd.py), and applies
`grpo.updates_per_batch` clipped policy-gradient updates of α·J_plan + J_code
(optionally with a KL penalty to the frozen starting model). Every step
logs mean reward per class, correctness, speed-up, KL, clip fraction,
response length and the time split (generate / verify / update).

The output URI gets `model/` (transformers format), `checkpoint-N/` every
`grpo.save_steps`, `history.jsonl`, `config.yaml`, and `manifest.json`
last — the same layout as SFT, so `resolve_model_source` loads either.
One process; on a GPU host the policy trains on `cuda:0`.

Run: `tritonrl grpo --tasks <augment-tasks URI> --model <SFT output URI>`.
Test: tests/test_grpo.py; learning evidence: bench/grpo_learning.py.
"""

from __future__ import annotations

import contextlib
import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

import torch

from tritonrl import hrd
from tritonrl.config import Config, dump_config
from tritonrl.datasets_io import DatasetError, read_dataset, read_manifest
from tritonrl.filter import verifier_settings
from tritonrl.models import (
    MODEL_DIR,
    encode_example,
    generate,
    load_model,
    load_tokenizer,
    resolve_model_source,
)
from tritonrl.problems import Problem
from tritonrl.prompts import build_messages
from tritonrl.storage import ArtifactStore, join
from tritonrl.training_output import prepare_output, publish_output
from tritonrl.verify.pool import Task, VerifierPool

HISTORY_FILE = "history.jsonl"


class GRPOError(RuntimeError):
    """GRPO cannot start or continue as configured."""


@dataclass(frozen=True)
class GRPOResult:
    output_uri: str
    model_uri: str
    steps: int
    history: list[dict]
    seconds: float


@dataclass
class Rollout:
    """One sampled response with what the update needs."""

    task: int
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    classes: list[int]
    r_code: float = 0.0
    r_plan: float = 0.0
    speedup: float | None = None


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _check_config(config: Config) -> None:
    g = config.grpo
    problems = []
    if g.group_size < 2:
        problems.append(f"grpo.group_size={g.group_size} must be >= 2 (advantages are relative to the group)")
    for key in ("tasks_per_step", "steps", "max_new_tokens", "micro_batch", "updates_per_batch"):
        if getattr(g, key) < 1:
            problems.append(f"grpo.{key}={getattr(g, key)} must be >= 1")
    if not 0 < g.clip_eps < 1:
        problems.append(f"grpo.clip_eps={g.clip_eps} must be in (0, 1)")
    if g.generation == "openai" and not (g.endpoint and g.served_model):
        problems.append("grpo.generation=openai needs grpo.endpoint and grpo.served_model (the server must serve the policy)")
    if problems:
        raise GRPOError("; ".join(problems))


def _load_tasks(store: ArtifactStore, tasks_uri: str) -> list[dict]:
    read_manifest(store, tasks_uri)
    tasks = read_dataset(store, tasks_uri)
    if not tasks:
        raise DatasetError(f"{tasks_uri} has no tasks; pass the augment-tasks dataset the augment stage printed")
    missing = {"problem", "problem_source"} - set(tasks[0])
    if missing:
        raise DatasetError(f"{tasks_uri} lacks column(s) {sorted(missing)}; pass an augment-tasks dataset")
    return tasks


class _Sampler:
    """Draws G responses per task from the policy, in one batched generate (or from a policy server)."""

    def __init__(self, config: Config, policy, tokenizer) -> None:
        self.config, self.policy, self.tokenizer = config, policy, tokenizer
        self.server = None
        if config.grpo.generation == "openai":
            from tritonrl.teachers import OpenAITeacher

            self.server = OpenAITeacher(config.grpo.endpoint, config.grpo.served_model)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    def __call__(self, tasks: list[dict]) -> list[Rollout]:
        g = self.config.grpo
        prompts = [build_messages(task["problem_source"]) for task in tasks]
        if self.server is None:
            self.policy.eval()
            generations = generate(
                self.policy, self.tokenizer, prompts, g.max_new_tokens, g.temperature, g.group_size, g.top_p
            )
            return [
                Rollout(i // g.group_size, gen.prompt_ids, gen.response_ids, gen.text,
                        hrd.token_classes(self.tokenizer, gen.response_ids, gen.text))
                for i, gen in enumerate(generations)
            ]
        rollouts = []
        for index, (task, messages) in enumerate(zip(tasks, prompts)):
            problem = Problem(task["problem"], task["problem_source"], origin="grpo tasks")
            for completion in self.server.generate(problem, messages, g.group_size, g.temperature, g.max_new_tokens):
                text = completion.text or ""
                example = encode_example(self.tokenizer, messages, text)
                prompt, response = example.input_ids[: example.prompt_tokens], example.input_ids[example.prompt_tokens:]
                rollouts.append(Rollout(index, prompt, response, text, hrd.token_classes(self.tokenizer, response, text)))
        return rollouts


def _response_logps(
    model, rollouts: list[Rollout], pad_id: int, temperature: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities of each rollout's response tokens under `model` at `temperature`: ([B, R], mask [B, R]).

    The update scores the responses under the distribution they were sampled
    from (logits / grpo.temperature), so the ratio, its clipping and the KL
    are about the sampling policy.
    """
    device = next(model.parameters()).device
    width = max(len(r.prompt_ids) + len(r.response_ids) for r in rollouts)
    longest = max(len(r.response_ids) for r in rollouts)
    ids = torch.full((len(rollouts), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rollouts), width), dtype=torch.long)
    for row, r in enumerate(rollouts):
        sequence = r.prompt_ids + r.response_ids
        ids[row, : len(sequence)] = torch.tensor(sequence)
        attention[row, : len(sequence)] = 1
    logits = model(input_ids=ids.to(device), attention_mask=attention.to(device), use_cache=False).logits
    logps = torch.zeros((len(rollouts), longest), device=device)
    mask = torch.zeros((len(rollouts), longest), device=device)
    for row, r in enumerate(rollouts):
        start, n = len(r.prompt_ids), len(r.response_ids)
        predicted = (logits[row, start - 1 : start - 1 + n].float() / temperature).log_softmax(-1)
        targets = torch.tensor(r.response_ids, device=device).unsqueeze(-1)
        logps[row, :n] = predicted.gather(-1, targets).squeeze(-1)
        mask[row, :n] = 1
    return logps, mask


def _targets(rollouts: list[Rollout], config: Config) -> list[hrd.TokenTargets]:
    """Per-token advantages and weights, advantages computed within each task's group."""
    g = config.grpo
    by_task: dict[int, list[int]] = {}
    for index, r in enumerate(rollouts):
        by_task.setdefault(r.task, []).append(index)
    targets: list[hrd.TokenTargets | None] = [None] * len(rollouts)
    for members in by_task.values():
        code = torch.tensor([rollouts[i].r_code for i in members])
        plan = torch.tensor([rollouts[i].r_plan for i in members])
        if g.uniform_reward:
            uniform = hrd.group_advantages(g.beta * code + (1 - g.beta) * plan, g.normalize_std, g.leave_one_out)
            for k, i in enumerate(members):
                targets[i] = hrd.token_targets(rollouts[i].classes, 0.0, 0.0, g.alpha, uniform=float(uniform[k]))
            continue
        a_code = hrd.group_advantages(code, g.normalize_std, g.leave_one_out)
        a_plan = hrd.group_advantages(plan, g.normalize_std, g.leave_one_out)
        for k, i in enumerate(members):
            targets[i] = hrd.token_targets(rollouts[i].classes, float(a_code[k]), float(a_plan[k]), g.alpha)
    return targets


def _padded(values: list[list[float]], width: int, device) -> torch.Tensor:
    out = torch.zeros((len(values), width), device=device)
    for row, v in enumerate(values):
        out[row, : len(v)] = torch.tensor(v, device=device)
    return out


def warmup(optimizer, updates: int):
    """Linear learning-rate warm-up over the first `updates` optimizer updates (AdamW's first updates are
    its largest relative to the signal); None when `updates` is 0."""
    if updates <= 0:
        return None
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda done: min(1.0, (done + 1) / updates))


def policy_update(
    policy, reference, optimizer, rollouts: list[Rollout], config: Config, pad_id: int, scheduler=None
) -> dict:
    """`updates_per_batch` clipped-objective updates over the rollouts; returns loss, clip fraction, KL.

    `scheduler` (the warm-up) advances with every optimizer update; a batch without signal makes none.
    """
    g = config.grpo
    usable = [r for r in rollouts if r.response_ids]
    targets = _targets(usable, config)
    if g.kl_coef == 0 and not any(a for t in targets for a in t.advantages):
        return {"loss": 0.0, "clip_fraction": 0.0, "kl": 0.0}  # every group's rewards are equal: no signal
    chunks = [list(range(i, min(i + g.micro_batch, len(usable)))) for i in range(0, len(usable), g.micro_batch)]
    temperature = g.temperature if g.temperature > 0 else 1.0  # greedy sampling: score at the plain logits
    with torch.no_grad():
        policy.eval()
        old = [_response_logps(policy, [usable[i] for i in chunk], pad_id, temperature)[0] for chunk in chunks]
        ref = ([_response_logps(reference, [usable[i] for i in chunk], pad_id, temperature)[0] for chunk in chunks]
               if reference else None)
    total_tokens = sum(len(r.response_ids) for r in usable)
    stats = {"loss": 0.0, "clip_fraction": 0.0, "kl": 0.0}
    policy.train()
    for _ in range(g.updates_per_batch):
        optimizer.zero_grad(set_to_none=True)
        for c, chunk in enumerate(chunks):
            batch = [usable[i] for i in chunk]
            logps, mask = _response_logps(policy, batch, pad_id, temperature)
            width = logps.shape[1]
            terms = hrd.clipped_objective(
                logps, old[c], _padded([targets[i].advantages for i in chunk], width, logps.device),
                _padded([targets[i].weights for i in chunk], width, logps.device), mask, g.clip_eps,
                ref[c] if ref else None, g.kl_coef, per_sequence=g.loss_norm == "sequence",
            )
            # chunks weigh by their tokens (one token-mean overall) or by their responses (one mean of responses)
            share = len(chunk) / len(usable) if g.loss_norm == "sequence" else float(mask.sum()) / max(total_tokens, 1)
            (terms.loss * share).backward()
            stats["loss"] += float(terms.loss.detach()) * share / g.updates_per_batch
            stats["clip_fraction"] += terms.clip_fraction * share / g.updates_per_batch
            stats["kl"] += terms.kl * share / g.updates_per_batch
        torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
    return stats


def _step_metrics(step: int, rollouts: list[Rollout], update: dict, seconds: dict[str, float]) -> dict:
    n = len(rollouts)
    speedups = [r.speedup for r in rollouts if r.speedup is not None]
    return {
        "step": step,
        "reward_code": sum(r.r_code for r in rollouts) / n,
        "reward_plan": sum(r.r_plan for r in rollouts) / n,
        "correct": sum(r.r_code > 0 for r in rollouts) / n,
        "mean_speedup": sum(speedups) / len(speedups) if speedups else None,
        "response_tokens": sum(len(r.response_ids) for r in rollouts) / n,
        "plan_token_share": sum(r.classes.count(hrd.PLAN) for r in rollouts) / max(sum(len(r.classes) for r in rollouts), 1),
        **update,
        **{f"{name}_s": round(value, 2) for name, value in seconds.items()},
    }


def _save_model(policy, tokenizer, directory: Path) -> None:
    policy.save_pretrained(directory)
    tokenizer.save_pretrained(directory)


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
    store = ArtifactStore(config.storage.s3_endpoint_url)
    tasks = _load_tasks(store, tasks_uri)
    model_name = model or config.student.base_model
    source = resolve_model_source(model_name, config.home, config.storage.s3_endpoint_url)
    tokenizer = load_tokenizer(source)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    torch.manual_seed(g.seed)
    policy = load_model(source, dtype=dtype, device=device)
    reference = load_model(source, dtype=dtype, device=device).eval().requires_grad_(False) if g.kl_coef > 0 else None
    optimizer = torch.optim.AdamW(policy.parameters(), lr=g.learning_rate, weight_decay=0.0)
    scheduler = warmup(optimizer, g.warmup_updates)
    sampler = _Sampler(config, policy, tokenizer)

    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out_uri = out_uri or join(config.artifact_root, "checkpoints", f"grpo-{stamp}")
    local, work = prepare_output(config, store, out_uri, GRPOError)
    (work / "config.yaml").write_text(dump_config(config))
    on_log(f"grpo: {len(tasks)} tasks, {g.steps} steps × {g.tasks_per_step} tasks × {g.group_size} samples, "
           f"policy {model_name} on {device}, verifier on {config.verify.device}")

    rng = random.Random(g.seed)
    history: list[dict] = []
    with VerifierPool(verifier_settings(config)) as pool, contextlib.closing(sampler):
        for step in range(1, g.steps + 1):
            chosen = rng.sample(tasks, min(g.tasks_per_step, len(tasks)))
            t0 = time.perf_counter()
            rollouts = sampler(chosen)
            t1 = time.perf_counter()
            verdicts = pool.verify_tasks(
                Task(f"{i}:{task['problem']}", task["problem_source"], [r.text for r in rollouts if r.task == i])
                for i, task in enumerate(chosen)
            )
            for i, task in enumerate(chosen):
                group = [r for r in rollouts if r.task == i]
                for rollout, verdict in zip(group, verdicts[f"{i}:{task['problem']}"]):
                    rollout.r_code, rollout.r_plan = hrd.rewards(verdict, config.verify.device, g.speedup_cap)
                    rollout.speedup = verdict.speedup if verdict.correct else None
            t2 = time.perf_counter()
            update = policy_update(policy, reference, optimizer, rollouts, config, tokenizer.pad_token_id, scheduler)
            t3 = time.perf_counter()
            metrics = _step_metrics(step, rollouts, update, {"generate": t1 - t0, "verify": t2 - t1, "update": t3 - t2})
            history.append(metrics)
            with (work / HISTORY_FILE).open("a") as out:
                out.write(json.dumps(metrics) + "\n")
            on_log(
                f"grpo step {step}/{g.steps}: r_code {metrics['reward_code']:.2f} r_plan {metrics['reward_plan']:.2f} "
                f"correct {metrics['correct']:.0%} loss {metrics['loss']:+.4f} clip {metrics['clip_fraction']:.2f} "
                f"kl {metrics['kl']:.4f} len {metrics['response_tokens']:.0f} | generate {metrics['generate_s']}s "
                f"verify {metrics['verify_s']}s update {metrics['update_s']}s"
            )
            if g.save_steps and step % g.save_steps == 0 and step < g.steps:
                _save_model(policy, tokenizer, work / f"checkpoint-{step}")

    _save_model(policy, tokenizer, work / MODEL_DIR)
    result = GRPOResult(out_uri, join(out_uri, MODEL_DIR), len(history), history, round(time.time() - started, 1))
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
