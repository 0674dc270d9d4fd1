"""One typed configuration for every stage, with named profiles.

`tiny` runs the whole pipeline on a 2-core laptop CPU with offline pieces
(reference teacher, Triton interpreter); `gpu` is sized for an 8×H100/H200
node (Qwen3-8B student, gpt-oss-120b teacher behind an OpenAI-compatible
endpoint). A config is resolved in three layers — profile defaults, then a
YAML file, then `section.key=value` overrides — and validated before any
work starts, so a typo fails in a second rather than an hour into a run.
Plain dataclasses (no pydantic) keep it importable on the GPU machine.

Test: tests/test_config.py.
"""

from __future__ import annotations

import dataclasses
import os
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml

from tritonrl.home import state_dir
from tritonrl.verify import defaults as verify_defaults
from tritonrl.verify.defaults import Precision

PROFILES = ("tiny", "gpu")
# The pipeline's earlier models its evaluation can set beside the final one (evaluate.compare).
COMPARABLE_MODELS = ("base", "sft")
# verify.precision: the tl.dot policy for fp32 problems (tritonrl/verify/precision.py).


class ConfigError(ValueError):
    """The configuration asked for something that does not exist or does not fit."""


def _http_url(url: str) -> bool:
    """Whether `url` can be an OpenAI-compatible endpoint's base URL: http(s) with a host."""
    parts = urlsplit(url.strip())
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def setting(default: Any, help: str) -> Any:
    """A config key with its one description, read by `--help`, `tritonrl config keys` and docs/CONFIGURATION.md."""
    return field(default=default, metadata={"help": help})


@dataclass(frozen=True)
class ProblemsConfig:
    source: str = setting(
        "builtin",
        "builtin | a directory | a KernelBench JSONL | a hub id | kernelbook: plus a JSONL, parquet or hub id",
    )
    levels: tuple[int, ...] = setting((), "KernelBench levels to keep; empty: every level the source has")
    limit: int = setting(0, "keep the first N problems; 0: all")


@dataclass(frozen=True)
class TeacherConfig:
    kind: Literal["reference", "openai", "hf"] = setting(
        "reference",
        "reference (the built-in answers, offline), openai (an OpenAI-compatible endpoint) or hf (a local model)",
    )
    model: str = setting("reference", "the model the endpoint serves (openai) or a hub id / directory (hf)")
    endpoint: str = setting("", "OpenAI-compatible base URL, e.g. http://vllm:8000/v1")
    api_key_env: str = setting("OPENAI_API_KEY", "name of the environment variable holding the key, never the key")
    samples_per_task: int = setting(10, "samples per problem (the paper's N)")
    temperature: float = setting(1.0, "sampling temperature; 0: greedy")
    max_tokens: int = setting(8192, "longest answer a teacher may write")
    concurrency: int = setting(8, "requests in flight to an endpoint")
    requests_per_second: float = setting(0.0, "client-side rate limit; 0: none")
    repair_turns: int = setting(
        0,
        "multi-turn distillation: the filter hands a rejected answer back with the verifier's feedback, up to this many "
        "more turns; repaired conversations become SFT data; 0: off",
    )

    def mistakes(self) -> list[str]:
        found = [
            f"teacher.{key}={getattr(self, key)} must be >= 1"
            for key in ("samples_per_task", "max_tokens", "concurrency")
            if getattr(self, key) < 1
        ]
        if self.repair_turns < 0:
            found.append(f"teacher.repair_turns={self.repair_turns} must be >= 0 (0: no repair turns)")
        if self.temperature < 0:
            found.append(f"teacher.temperature={self.temperature} must be >= 0 (0 means greedy)")
        if self.requests_per_second < 0:
            found.append(
                f"teacher.requests_per_second={self.requests_per_second} must be >= 0 (0: no client-side limit)"
            )
        if self.kind == "openai" and not self.endpoint.strip():
            found.append(
                "teacher.kind=openai needs teacher.endpoint, the OpenAI-compatible base URL, "
                "e.g. teacher.endpoint=http://localhost:8000/v1"
            )
        elif self.kind == "openai" and not _http_url(self.endpoint):
            found.append(
                f"teacher.endpoint={self.endpoint!r} is not an http(s) URL; e.g. teacher.endpoint=http://localhost:8000/v1"
            )
        if self.kind in ("openai", "hf") and (not self.model.strip() or self.model == "reference"):
            what = (
                "the model name the endpoint serves"
                if self.kind == "openai"
                else "a Hugging Face hub id or local model directory"
            )
            example = "openai/gpt-oss-120b" if self.kind == "openai" else "Qwen/Qwen3-8B"
            found.append(
                f"teacher.kind={self.kind} needs teacher.model, {what} (got {self.model!r}), e.g. teacher.model={example}"
            )
        return found


@dataclass(frozen=True)
class AugmentConfig:
    variants_per_task: int = setting(5, "shape variants proposed per accepted task (the paper's default)")
    seed: int = setting(0, "seed of the variant sampler and of the order breakage kinds are tried in")
    refinement_pairs: int = setting(
        0,
        "refinement rows per problem (a broken answer, the verifier's feedback, the fixed answer) added to the SFT pairs; 0: off",
    )

    def mistakes(self) -> list[str]:
        return (
            [f"augment.refinement_pairs={self.refinement_pairs} must be >= 0 (0: no refinement rows)"]
            if self.refinement_pairs < 0
            else []
        )


@dataclass(frozen=True)
class StudentConfig:
    base_model: str = setting(
        "tiny-local", "hub id or local path of the model SFT starts from; tiny-local builds a small model offline"
    )


@dataclass(frozen=True)
class SFTConfig:
    """Supervised fine-tuning (tritonrl/stages/sft.py); batch sizes are per process, `auto` means on with CUDA."""

    max_seq_len: int = setting(8192, "longer (prompt + response) examples are dropped, not truncated")
    epochs: float = setting(2.0, "passes over the pairs (unless max_steps > 0)")
    max_steps: int = setting(0, "optimizer steps; > 0 overrides epochs")
    learning_rate: float = setting(1e-5, "peak learning rate")
    lr_scheduler: str = setting("cosine", "any transformers scheduler name")
    warmup_ratio: float = setting(0.03, "share of the steps spent warming up")
    weight_decay: float = setting(0.0, "AdamW weight decay")
    batch_size: int = setting(1, "sequences per process per micro-step (with packing: flattened into one row)")
    grad_accumulation: int = setting(8, "micro-steps per optimizer step")
    packing: bool = setting(True, "padding-free batches (position ids keep sequences apart); off: length grouping")
    bf16: Literal["auto", True, False] = setting("auto", "bfloat16 mixed precision; auto: on with CUDA")
    gradient_checkpointing: Literal["auto", True, False] = setting(
        "auto", "recompute activations in backward; auto: on with CUDA"
    )
    attn_implementation: str = setting(
        "auto",
        "auto: tritonrl_varlen with packing (tritonrl/training/sft/packed_attention.py), else sdpa; or any transformers name",
    )
    liger_kernel: Literal["auto", True, False] = setting(
        "auto", "fused Triton kernels from liger-kernel (the package's gpu extra); auto: on with CUDA when installed"
    )
    torch_compile: bool = setting(False, "torch.compile the model")
    dataloader_workers: int = setting(-1, "-1: 2 with CUDA (batches collated before the GPU asks for them), 0 on CPU")
    eval_fraction: float = setting(0.02, "share of rows held out for the eval loss")
    eval_steps: int = setting(100, "steps between eval-loss measurements")
    logging_steps: int = setting(10, "steps between logged losses")
    save_steps: int = setting(500, "steps between checkpoints; 0: only the final model")
    save_total_limit: int = setting(2, "checkpoints kept")
    deepspeed: str = setting(
        "", '"" (none), zero2, zero3 (tritonrl/training/sft/deepspeed/<name>.json) or a path to a JSON config'
    )
    launcher: Literal["torchrun", "deepspeed"] = setting("torchrun", "what starts the training processes")
    nproc_per_node: int = setting(1, "training processes per node (one per GPU)")
    nnodes: int = setting(1, "nodes; > 1 needs rdzv_endpoint")
    rdzv_endpoint: str = setting("", "host:port of node 0, needed when nnodes > 1")
    seed: int = setting(0, "seed of data order and initialisation")

    def mistakes(self) -> list[str]:
        """The DeepSpeed launcher finds its nodes in its hostfile; torchrun needs the launch keys."""
        return launch_mistakes("sft", self) if self.launcher == "torchrun" else []


@dataclass(frozen=True)
class GRPOConfig:
    """HRD-GRPO (tritonrl/stages/grpo.py, tritonrl/training/grpo/hrd.py): rollouts, verifier rewards, one policy update per step."""

    group_size: int = setting(8, "G samples per task")
    tasks_per_step: int = setting(8, "tasks per step, the global batch (split over the processes)")
    steps: int = setting(200, "policy steps")
    learning_rate: float = setting(1e-6, "learning rate")
    optimizer: Literal["adamw", "sgd"] = setting(
        "adamw", "adamw, or sgd (plain SGD: each step scales with the gradient)"
    )
    train_params: str = setting(
        "", 'regex over parameter names: only matches train ("norm"; "^(?!model\\.embed)"); "": all'
    )
    dtype: Literal["auto", "float32", "bfloat16"] = setting(
        "auto",
        "policy weights; auto: bfloat16 on CUDA, float32 on CPU (float32 keeps updates bfloat16 would round away)",
    )
    warmup_updates: int = setting(0, "linear learning-rate warm-up over the first N optimizer updates; 0: none")
    alpha: float = setting(0.1, "weight of the plan (reasoning) objective next to the code objective")
    clip_eps: float = setting(0.2, "PPO clip range, in (0, 1)")
    kl_coef: float = setting(0.0, "> 0 keeps a frozen reference model and adds a KL penalty")
    normalize_std: bool = setting(True, "divide advantages by the group's reward std")
    loss_norm: Literal["token", "sequence"] = setting(
        "token", "token: one mean over all response tokens; sequence: per response, then over responses"
    )
    leave_one_out: bool = setting(
        False,
        "baseline = mean of the other samples instead of the group mean (with turns > 1: of the other trajectories "
        "at the same turn, TRLOO)",
    )
    negative_weight: float = setting(
        1.0, "scales negative advantages (1: GRPO; 0: only better-than-baseline samples are pushed)"
    )
    turns: int = setting(
        1,
        "turns per trajectory: an answer not yet done (evaluate.stop_speedup's rule) gets the verifier's feedback and "
        "is asked again; advantages per turn position over the trajectories that reached it; 1: single-turn",
    )
    turn_discount: float = setting(
        0.4,
        "gamma of a turn's return r_t + gamma*r_(t+1) + ...; below 1 a first answer that is right outscores a wrong "
        "one fixed later (Kevin's 0.4)",
    )
    uniform_reward: bool = setting(False, "ablation: one reward beta*r_code + (1-beta)*r_plan on every token")
    beta: float = setting(0.5, "weight of r_code in the uniform-reward ablation")
    speedup_cap: float = setting(10.0, "r_plan = min(speed-up, cap) for correct kernels (on CPU, r_plan = r_code)")
    plan_reward: Literal["speedup", "sol_fraction"] = setting(
        "speedup",
        "r_plan of a correct kernel on cuda: the capped speed-up over eager PyTorch, or sol_fraction, the share of "
        "the GPU's speed of light it reaches (capped at 1; comparable across problems whatever their baseline)",
    )
    temperature: float = setting(1.0, "sampling temperature of the rollouts")
    top_p: float = setting(1.0, "nucleus sampling of the rollouts")
    max_new_tokens: int = setting(4096, "longest rollout")
    micro_batch: int = setting(4, "sequences per forward/backward pass")
    updates_per_batch: int = setting(1, "policy updates over each batch of rollouts")
    generation: Literal["hf", "openai"] = setting("hf", "hf: in-process; openai: a server serving the current policy")
    endpoint: str = setting("", "the policy server's OpenAI-compatible base URL (generation=openai)")
    served_model: str = setting("", "the model name the policy server serves (generation=openai)")
    save_steps: int = setting(0, "steps between checkpoints; 0: only the final model")
    nproc_per_node: int = setting(
        1, "data-parallel processes per node (one per GPU, started by torchrun); 1 trains in-process"
    )
    nnodes: int = setting(1, "nodes; > 1 needs rdzv_endpoint, and the torchrun command logged runs on every other node")
    rdzv_endpoint: str = setting("", "host:port of node 0, needed when nnodes > 1")
    seed: int = setting(0, "seed of task order and sampling")

    def mistakes(self) -> list[str]:
        found = []
        if self.group_size < 2:
            found.append(f"grpo.group_size={self.group_size} must be >= 2 (advantages are relative to the group)")
        for key in ("tasks_per_step", "steps", "max_new_tokens", "micro_batch", "updates_per_batch"):
            if getattr(self, key) < 1:
                found.append(f"grpo.{key}={getattr(self, key)} must be >= 1")
        found += launch_mistakes("grpo", self)
        world = self.nproc_per_node * self.nnodes
        if 1 <= self.tasks_per_step < world:
            found.append(
                f"grpo.tasks_per_step={self.tasks_per_step} is the global batch of tasks and must be >= the "
                f"{world} processes (grpo.nproc_per_node × grpo.nnodes): raise it or use fewer processes"
            )
        if not 0 < self.clip_eps < 1:
            found.append(f"grpo.clip_eps={self.clip_eps} must be in (0, 1)")
        if self.turns < 1:
            found.append(f"grpo.turns={self.turns} must be >= 1 (1: single-turn)")
        if not 0 <= self.turn_discount <= 1:
            found.append(
                f"grpo.turn_discount={self.turn_discount} must be in [0, 1] (0: each turn its own reward only)"
            )
        if self.negative_weight < 0:
            found.append(
                f"grpo.negative_weight={self.negative_weight} must be >= 0 (below 0 would reward the worse samples)"
            )
        if self.generation == "openai" and not (self.endpoint and self.served_model):
            found.append(
                "grpo.generation=openai needs grpo.endpoint and grpo.served_model (the server must serve the policy)"
            )
        return found


def launch_mistakes(section: str, settings: SFTConfig | GRPOConfig) -> list[str]:
    """What is wrong with the torchrun launch keys of `section`."""
    found = [
        f"{section}.{key}={getattr(settings, key)} must be >= 1"
        for key in ("nproc_per_node", "nnodes")
        if getattr(settings, key) < 1
    ]
    if settings.nnodes > 1 and not settings.rdzv_endpoint:
        found.append(f"{section}.nnodes={settings.nnodes} needs {section}.rdzv_endpoint=host:port of node 0")
    return found


@dataclass(frozen=True)
class EvaluateConfig:
    """The pipeline's evaluation of its final model, and the nightly one (generate, verify, report)."""

    problems: str = setting("builtin", "any problems.source; the gpu profile evaluates on KernelBench")
    levels: tuple[int, ...] = setting((), "levels to evaluate; empty: all")
    limit: int = setting(0, "evaluate the first N problems; 0: all")
    shapes: Literal["original", "held_out"] = setting(
        "original",
        "held_out: ask for each problem at its alternate shapes, which no training prompt has (built-in suite); "
        "the evaluated model is then also asked at the problems' own shapes (metrics original_shapes.*)",
    )
    samples: int = setting(1, "responses per problem (pass@k up to this k)")
    temperature: float = setting(0.0, "sampling temperature; 0: greedy, the model's best single answer")
    max_tokens: int = setting(2048, "longest answer")
    metric: str = setting(
        "correct", "the overall metric a candidate must beat to become champion (fast_1 once timed on GPU)"
    )
    compare: tuple[str, ...] = setting(
        ("base", "sft"),
        "earlier models the pipeline's evaluation also answers with, side by side: base, sft; empty: none",
    )
    turns: int = setting(
        1,
        "turns of refinement per sample: each answer not yet done gets the verifier's feedback and is asked again; 1: single-turn",
    )
    stop_speedup: float = setting(
        1.0,
        "a conversation is done at a correct answer at least this many times faster than PyTorch (GPU); on CPU correct is enough",
    )

    def mistakes(self) -> list[str]:
        unknown = [name for name in self.compare if name not in COMPARABLE_MODELS]
        found = (
            [f"evaluate.compare={list(self.compare)}: {unknown} are not among {list(COMPARABLE_MODELS)}"]
            if unknown
            else []
        )
        if self.turns < 1:
            found.append(f"evaluate.turns={self.turns} must be >= 1 (1: single-turn, no refinement)")
        if not self.stop_speedup > 0:
            found.append(f"evaluate.stop_speedup={self.stop_speedup} must be > 0 (1.0: as fast as PyTorch)")
        return found


@dataclass(frozen=True)
class VerifyConfig:
    device: Literal["cpu", "cuda"] = setting(
        verify_defaults.DEVICE, "cpu runs kernels in Triton's interpreter; cuda on the GPU"
    )
    trials: int = setting(verify_defaults.TRIALS, "input sets each candidate is checked on (secret seeds)")
    timeout_s: float = setting(
        verify_defaults.TIMEOUT_S, "base limit per sandboxed run (a candidate's grows with the reference's own time)"
    )
    precision: Precision = setting(
        verify_defaults.PRECISION,
        "tl.dot in fp32 problems: strict needs IEEE fp32 (the reference is not TF32); tf32 allows TF32 like torch's allow_tf32",
    )
    judge_url: str = setting(
        "",
        "OpenAI-compatible base URL of the LLM judge, the verifier's last layer: it reads each valid answer against its "
        "problem and says whether the computation is really implemented in Triton (tritonrl/verify/judge.py), for every "
        "stage; e.g. http://vllm:8000/v1; empty: no judge",
    )
    judge_model: str = setting(
        "", "the model the judge's endpoint serves, e.g. Qwen/Qwen3-235B-A22B (needed with judge_url)"
    )
    judge_api_key_env: str = setting(
        verify_defaults.JUDGE_API_KEY_ENV, "name of the environment variable holding the judge's key, never the key"
    )
    judge_timeout_s: float = setting(
        verify_defaults.JUDGE_TIMEOUT_S,
        "seconds to wait for the judge; a judge with no usable answer rejects nothing (the verdict's judge is error, with why)",
    )

    def mistakes(self) -> list[str]:
        """Trials and the time limit; the judge's keys matter only once judge_url is set (empty: off)."""
        found = []
        if self.trials < 1:
            found.append(f"verify.trials={self.trials} must be >= 1")
        if not self.timeout_s > 0:
            found.append(f"verify.timeout_s={self.timeout_s} must be > 0")
        if not self.judge_url:
            return found
        if not _http_url(self.judge_url):
            found.append(
                f"verify.judge_url={self.judge_url!r} is not an http(s) URL; e.g. verify.judge_url=http://localhost:8000/v1"
            )
        if not self.judge_model.strip():
            found.append(
                "verify.judge_url needs verify.judge_model, the model name the endpoint serves, "
                "e.g. verify.judge_model=Qwen/Qwen3-235B-A22B"
            )
        if not self.judge_timeout_s > 0:
            found.append(f"verify.judge_timeout_s={self.judge_timeout_s} must be > 0")
        return found


@dataclass(frozen=True)
class ShardsConfig:
    """How many shards filter and evaluate split their problems into (tritonrl/artifacts/shards.py).

    With `gpu_deployments` each shard is a flow run on the `cuda` pool, so set
    these to the number of `cuda` workers (GPU hosts): one host already uses
    all its GPUs for one shard, and a shard beyond the hosts only queues.
    In-process (`tritonrl run`) shards run one after another. 1: unsharded.
    """

    filter: int = setting(1, "shards of the filter stage; 1: unsharded")
    evaluate: int = setting(1, "shards of the evaluate stage; 1: unsharded")

    def __post_init__(self) -> None:
        for stage in ("filter", "evaluate"):
            if getattr(self, stage) < 1:
                raise ConfigError(f"shards.{stage}={getattr(self, stage)}: must be >= 1 (1 runs the stage unsharded)")


@dataclass(frozen=True)
class StorageConfig:
    artifact_root: str = setting("", "URI of every artifact (file://, s3://); empty: file://<state dir>/artifacts")
    s3_endpoint_url: str = setting(
        "", "S3-compatible endpoint (MinIO...); empty: AWS default resolution (env, profile)"
    )


@dataclass(frozen=True)
class TrackingConfig:
    tracking_uri: str = setting(
        "",
        "MLflow tracking URI; empty: $MLFLOW_TRACKING_URI if set, else sqlite:///<state dir>/mlflow.db "
        "(the registry: $MLFLOW_REGISTRY_URI if set, else the tracking URI)",
    )
    experiment: str = setting("tritonrl", "MLflow experiment name")


@dataclass(frozen=True)
class Config:
    profile: str = "tiny"
    problems: ProblemsConfig = field(default_factory=ProblemsConfig)
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    augment: AugmentConfig = field(default_factory=AugmentConfig)
    student: StudentConfig = field(default_factory=StudentConfig)
    sft: SFTConfig = field(default_factory=SFTConfig)
    grpo: GRPOConfig = field(default_factory=GRPOConfig)
    evaluate: EvaluateConfig = field(default_factory=EvaluateConfig)
    verify: VerifyConfig = field(default_factory=VerifyConfig)
    shards: ShardsConfig = field(default_factory=ShardsConfig)
    storage: StorageConfig = field(default_factory=StorageConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)

    @property
    def home(self) -> Path:
        return state_dir()

    @property
    def artifact_root(self) -> str:
        return self.storage.artifact_root or (self.home / "artifacts").as_uri()

    @property
    def tracking_uri(self) -> str:
        """tracking.tracking_uri; else MLflow's own MLFLOW_TRACKING_URI, as every MLflow tool reads it; else the
        SQLite store under the state dir."""
        return (
            self.tracking.tracking_uri
            or os.environ.get("MLFLOW_TRACKING_URI")
            or f"sqlite:///{self.home / 'mlflow.db'}"
        )

    @property
    def registry_uri(self) -> str:
        """The model registry: MLFLOW_REGISTRY_URI when set (as in MLflow), else the tracking URI."""
        return os.environ.get("MLFLOW_REGISTRY_URI") or self.tracking_uri

    def to_dict(self) -> dict[str, Any]:
        return _plain(dataclasses.asdict(self))

    def settings(self) -> dict[str, Any]:
        """Every key's value as {'section.key': value}, in declaration order."""
        return {
            f"{section}.{key}": value
            for section, values in self.to_dict().items()
            if isinstance(values, dict)
            for key, value in values.items()
        }


# Profile values that differ from the dataclass defaults. The defaults are the paper's hyperparameters and
# settings that run on any machine; a profile adds its hardware (gpu: models, endpoints, processes, CUDA)
# or its scale (tiny: a 2-core CPU in minutes).
_PROFILE_VALUES: dict[str, dict[str, dict[str, Any]]] = {
    "tiny": {
        # Two samples per task keep the CPU demo minutes long; reference answers are deterministic anyway.
        "teacher": {"samples_per_task": 2},
        # A tiny model needs a large learning rate; 450 steps of 4 rows (17 passes over the 108 pairs) teach it all
        # 18 problems, at shapes it never saw and at their own (at 300 steps one or two answers went wrong at a token;
        # 2 rows per step with 3 shape variants per task: 6/18). Every row trains: the demo's model learns each
        # problem from its six rows, and a held-out row can be the one prompt `tritonrl generate` asks (a problem's
        # own shapes; at 10% held out, 04_add_bias_broadcast's was, and the model failed it there).
        "sft": {
            "max_seq_len": 1536,
            "max_steps": 450,
            "learning_rate": 4e-3,
            "warmup_ratio": 0.1,
            "batch_size": 4,
            "grad_accumulation": 1,
            "packing": False,
            "eval_fraction": 0.0,
            "logging_steps": 25,
            "save_steps": 0,
        },
        # Two steps of small groups show the stage run (generation dominates) without undoing SFT: at lr 3e-4 the
        # two steps took the SFT model from 15/18 to 12/18 (at 1e-5: 16/18 stays 16/18); bench/grpo_learning.py learns.
        "grpo": {
            "group_size": 4,
            "tasks_per_step": 2,
            "steps": 2,
            "learning_rate": 1e-5,
            "negative_weight": 0.0,
            "max_new_tokens": 512,
        },
        # Every problem at held-out shapes, greedy, for the base, SFT and final model: the learning the demo shows.
        # The longest reference answer is 858 tokens; the untrained base model writes until the limit (batched).
        "evaluate": {"shapes": "held_out", "max_tokens": 1024},
    },
    "gpu": {
        "problems": {"source": "kernelbook:GPUMODE/KernelBook"},
        "teacher": {
            "kind": "openai",
            "model": "openai/gpt-oss-120b",
            "endpoint": "http://localhost:8000/v1",
            "temperature": 0.7,
        },
        "student": {"base_model": "Qwen/Qwen3-8B"},
        # One process per GPU: SFT shards the model with ZeRO-3, GRPO keeps a policy replica verifying on its GPU.
        "sft": {"deepspeed": "zero3", "nproc_per_node": 8},
        "grpo": {"nproc_per_node": 8},
        "evaluate": {"problems": "ScalingIntelligence/KernelBench", "levels": (1, 2, 3), "metric": "fast_1"},
        "verify": {"device": "cuda", "trials": 5, "timeout_s": 300.0},
    },
}


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively, so YAML/JSON dumps stay portable."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _coerce(value: Any, annotation: Any, key: str) -> Any:
    """Check `value` against a field annotation; convert the few safe cases."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        if value not in typing.get_args(annotation):
            raise ConfigError(f"{key}={value!r} is not one of {list(typing.get_args(annotation))}")
        return value
    if origin is tuple:
        (item_type, _) = typing.get_args(annotation)
        items = value if isinstance(value, (list, tuple)) else [value]
        return tuple(_coerce(v, item_type, key) for v in items)
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if annotation is float and isinstance(value, str):
        # YAML 1.1 reads `2e-05` (no dot) as a string; it is plainly a number.
        try:
            return float(value)
        except ValueError:
            raise ConfigError(f"{key}={value!r} should be a number") from None
    if annotation is str and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, annotation) or (annotation is int and isinstance(value, bool)):
        raise ConfigError(f"{key}={value!r} should be of type {annotation.__name__}")
    return value


def _apply(config: Config, values: Mapping[str, Any], origin: str, sources: dict[str, str]) -> Config:
    """Return `config` with `values` ({section: {key: value}}) applied, recording where each came from."""
    sections = {f.name: f for f in dataclasses.fields(Config) if f.name != "profile"}
    updated: dict[str, Any] = {}
    for section_name, section_values in values.items():
        if section_name == "profile":
            continue
        if section_name not in sections:
            raise ConfigError(f"{origin}: unknown section {section_name!r}; sections are {sorted(sections)}")
        if not isinstance(section_values, Mapping):
            raise ConfigError(f"{origin}: section {section_name!r} must be a mapping of key: value")
        section = updated.get(section_name, getattr(config, section_name))
        hints = typing.get_type_hints(type(section))
        changes = {}
        for key, value in section_values.items():
            if key not in hints:
                raise ConfigError(f"{origin}: unknown key {section_name}.{key}; keys are {sorted(hints)}")
            changes[key] = _coerce(value, hints[key], f"{section_name}.{key}")
            sources[f"{section_name}.{key}"] = origin
        updated[section_name] = dataclasses.replace(section, **changes)
    return dataclasses.replace(config, **updated)


def parse_overrides(overrides: Iterable[str]) -> dict[str, dict[str, Any]]:
    """`section.key=value` strings to nested values; values are parsed as YAML scalars."""
    nested: dict[str, dict[str, Any]] = {}
    for item in overrides:
        path, sep, raw = item.partition("=")
        section, dot, key = path.strip().partition(".")
        if not sep or not dot or not section or not key:
            raise ConfigError(f"override {item!r} should look like section.key=value, e.g. teacher.samples_per_task=4")
        nested.setdefault(section, {})[key] = yaml.safe_load(raw) if raw.strip() else ""
    return nested


def load_config(
    profile: str | None = None, config_file: str | Path | None = None, overrides: Iterable[str] = ()
) -> tuple[Config, dict[str, str]]:
    """Resolve profile → YAML file → overrides; returns the config and the origin of every value.

    The profile comes from the argument, else the file's `profile:` key, else `tiny`.
    """
    file_values: dict[str, Any] = {}
    if config_file is not None:
        path = Path(config_file)
        if not path.is_file():
            raise ConfigError(f"config file {path} does not exist")
        try:
            file_values = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"config file {path} is not valid YAML: {exc}") from exc
        if not isinstance(file_values, Mapping):
            raise ConfigError(f"config file {path} must hold a mapping of sections")
    chosen = profile or file_values.get("profile") or "tiny"
    if chosen not in PROFILES:
        raise ConfigError(f"unknown profile {chosen!r}; profiles are {list(PROFILES)}")

    sources: dict[str, str] = {}
    config = _apply(Config(profile=chosen), _PROFILE_VALUES[chosen], f"profile {chosen}", sources)
    if file_values:
        config = _apply(config, file_values, str(config_file), sources)
    config = _apply(config, parse_overrides(overrides), "override", sources)
    found = mistakes(config)
    if found:
        raise ConfigError("; ".join(found))
    return config, sources


def mistakes(config: Config) -> list[str]:
    """Every setting that cannot work, checked before any stage starts (stages check again when called directly)."""
    sections = (getattr(config, f.name) for f in dataclasses.fields(config))
    return [m for section in sections if hasattr(section, "mistakes") for m in section.mistakes()]


def key_help(section: str | None = None) -> list[tuple[str, str]]:
    """(`section.key`, description) for every key, or for one section's keys."""
    sections = [f for f in dataclasses.fields(Config) if f.name != "profile" and section in (None, f.name)]
    if not sections:
        raise ConfigError(
            f"unknown section {section!r}; sections are {[f.name for f in dataclasses.fields(Config)][1:]}"
        )
    return [
        (f"{s.name}.{key.name}", key.metadata["help"])
        for s in sections
        for key in dataclasses.fields(s.default_factory)
    ]


def describe(config: Config, sources: Mapping[str, str]) -> list[str]:
    """One line per setting: `section.key = value  (origin)`, defaults marked as such."""
    return [f"profile = {config.profile}"] + [
        f"{key} = {value!r}  ({sources.get(key, 'default')})" for key, value in config.settings().items()
    ]


def dump_config(config: Config) -> str:
    """The resolved config as YAML, saved next to every stage output."""
    return yaml.safe_dump(config.to_dict(), sort_keys=False)
