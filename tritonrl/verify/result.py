"""The verdict on one candidate and the reason codes it can carry.

Reason codes are set where a failure is detected (never recovered later by
matching error text), so rewards, filters and reports can count them.
A verdict is `valid` when no format/static/behavioural rule was broken,
`compiled` when the candidate imported, built and ran, and `correct` only
when it is also valid and matched the reference on every trial.

Test: tests/verify/test_result.py.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any


class Layer(str, Enum):
    """Which verifier layer a reason comes from; decides which flag it clears."""

    FORMAT = "format"  # clears valid
    STATIC = "static"  # clears valid
    BEHAVIOUR = "behaviour"  # runtime rule broken: clears valid
    BUILD = "build"  # import / construction / compilation / crash: clears compiled
    OUTPUT = "output"  # ran, but the answer is wrong: clears correct only
    ENVIRONMENT = "environment"  # not the candidate's fault (reference or harness broke)


class ReasonCode(str, Enum):
    """Every way a candidate can fail, with the layer that detects it."""

    # format
    NO_CODE = "no_code"
    SYNTAX_ERROR = "syntax_error"
    NO_MODELNEW = "no_modelnew"
    NO_TRITON_KERNEL = "no_triton_kernel"
    # static (AST, with alias/import resolution)
    KERNEL_NOT_REACHABLE = "kernel_not_reachable"
    FORBIDDEN_TORCH_OP = "forbidden_torch_op"
    FORBIDDEN_MODULE_CALL = "forbidden_module_call"
    FORBIDDEN_IMPORT = "forbidden_import"
    DYNAMIC_CODE = "dynamic_code"
    TORCH_COMPILE = "torch_compile"
    CUDA_EXTENSION = "cuda_extension"
    MONKEYPATCH = "monkeypatch"
    STREAM_OR_THREAD = "stream_or_thread"
    HOST_ROUNDTRIP = "host_roundtrip"  # also found at run time: the trace's reads of tensor data by the host
    REFERENCE_MODEL_USE = "reference_model_use"
    EXCEPTION_FALLBACK = "exception_fallback"
    ENV_OR_NETWORK = "env_or_network"
    NOT_ALLOWED = "not_allowed"  # outside the grammar of a Triton answer's host or kernel code
    DEVICE_DEPENDENT_PATH = "device_dependent_path"  # on CPU: host code that decides on the device (device_paths.py)
    # runtime behaviour
    NO_KERNEL_LAUNCHED = "no_kernel_launched"
    TRACED_TORCH_COMPUTE = "traced_torch_compute"
    NO_KERNEL_OUTPUT = "no_kernel_output"  # output elements no kernel of the call wrote (kernel_writes.py)
    INPUT_MUTATED = "input_mutated"
    OUTPUT_ALIASES_INPUT = "output_aliases_input"
    OUTPUT_REUSED = "output_reused"  # a later call returned (or wrote into) memory an earlier call returned
    OUTPUT_NOT_TENSOR = "output_not_tensor"
    THREAD_LEFT_RUNNING = "thread_left_running"
    TIMED_OUTPUT_WRONG = "timed_output_wrong"
    JUDGE_REJECTED = "judge_rejected"
    PRECISION_DOWNGRADE = "precision_downgrade"  # a dot below the problem's precision (verify.precision)
    FASTER_THAN_LIGHT = "faster_than_light"  # timed below the floor no correct kernel can beat (speed_of_light.py)
    # build / faults
    IMPORT_ERROR = "import_error"
    INIT_ERROR = "init_error"
    COMPILE_ERROR = "compile_error"
    RUNTIME_ERROR = "runtime_error"
    TIMEOUT = "timeout"
    CRASHED = "crashed"
    OUT_OF_MEMORY = "out_of_memory"
    CUDA_ERROR = "cuda_error"
    SANDBOX_BROKEN = "sandbox_broken"  # the fork server died or stopped answering while the candidate ran
    # output
    SHAPE_MISMATCH = "shape_mismatch"
    DTYPE_MISMATCH = "dtype_mismatch"
    DEVICE_MISMATCH = "device_mismatch"
    NON_FINITE = "non_finite"
    WRONG_RESULT = "wrong_result"
    # environment
    REFERENCE_FAILED = "reference_failed"
    SHAPES_UNSUPPORTED = "shapes_unsupported"
    SANDBOX_ERROR = "sandbox_error"

    @property
    def layer(self) -> Layer:
        return _LAYERS[self]


_LAYERS: dict[ReasonCode, Layer] = {
    **{
        c: Layer.FORMAT
        for c in (ReasonCode.NO_CODE, ReasonCode.SYNTAX_ERROR, ReasonCode.NO_MODELNEW, ReasonCode.NO_TRITON_KERNEL)
    },
    **{
        c: Layer.STATIC
        for c in (
            ReasonCode.KERNEL_NOT_REACHABLE,
            ReasonCode.FORBIDDEN_TORCH_OP,
            ReasonCode.FORBIDDEN_MODULE_CALL,
            ReasonCode.FORBIDDEN_IMPORT,
            ReasonCode.DYNAMIC_CODE,
            ReasonCode.TORCH_COMPILE,
            ReasonCode.CUDA_EXTENSION,
            ReasonCode.MONKEYPATCH,
            ReasonCode.STREAM_OR_THREAD,
            ReasonCode.HOST_ROUNDTRIP,
            ReasonCode.REFERENCE_MODEL_USE,
            ReasonCode.EXCEPTION_FALLBACK,
            ReasonCode.ENV_OR_NETWORK,
            ReasonCode.NOT_ALLOWED,
            ReasonCode.DEVICE_DEPENDENT_PATH,
        )
    },
    **{
        c: Layer.BEHAVIOUR
        for c in (
            ReasonCode.NO_KERNEL_LAUNCHED,
            ReasonCode.TRACED_TORCH_COMPUTE,
            ReasonCode.NO_KERNEL_OUTPUT,
            ReasonCode.INPUT_MUTATED,
            ReasonCode.OUTPUT_ALIASES_INPUT,
            ReasonCode.OUTPUT_REUSED,
            ReasonCode.OUTPUT_NOT_TENSOR,
            ReasonCode.THREAD_LEFT_RUNNING,
            ReasonCode.TIMED_OUTPUT_WRONG,
            ReasonCode.JUDGE_REJECTED,
            ReasonCode.PRECISION_DOWNGRADE,
            ReasonCode.FASTER_THAN_LIGHT,
        )
    },
    **{
        c: Layer.BUILD
        for c in (
            ReasonCode.IMPORT_ERROR,
            ReasonCode.INIT_ERROR,
            ReasonCode.COMPILE_ERROR,
            ReasonCode.RUNTIME_ERROR,
            ReasonCode.TIMEOUT,
            ReasonCode.CRASHED,
            ReasonCode.OUT_OF_MEMORY,
            ReasonCode.CUDA_ERROR,
            ReasonCode.SANDBOX_BROKEN,
        )
    },
    **{
        c: Layer.OUTPUT
        for c in (
            ReasonCode.SHAPE_MISMATCH,
            ReasonCode.DTYPE_MISMATCH,
            ReasonCode.DEVICE_MISMATCH,
            ReasonCode.NON_FINITE,
            ReasonCode.WRONG_RESULT,
        )
    },
    **{
        c: Layer.ENVIRONMENT
        for c in (ReasonCode.REFERENCE_FAILED, ReasonCode.SHAPES_UNSUPPORTED, ReasonCode.SANDBOX_ERROR)
    },
}


@dataclass(frozen=True)
class Reason:
    code: ReasonCode
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code.value, "message": self.message}


@dataclass
class Verdict:
    """What the verifier concluded about one candidate for one problem."""

    reasons: list[Reason] = field(default_factory=list)
    ran: bool = False  # the candidate reached the runtime layer and finished its trials
    matches_reference: bool = False  # outputs matched on every trial: what a naive harness would call correct
    speedup: float | None = None  # eager reference time / candidate time; GPU timing only, correct candidates only
    speedup_compile: float | None = None  # torch.compile reference time / candidate time, when that baseline was run
    triton_time_share: float | None = None  # share of the call's device time in the candidate's own Triton kernels
    candidate_ms: float | None = None
    baseline_ms: float | None = None
    timing_cv: float | None = None
    # GPU timing only (speed_of_light.py): the problem's speed of light, its share the candidate reached
    # (sol_ms / candidate_ms), and the floor below which a timing is faster_than_light
    sol_ms: float | None = None
    sol_fraction: float | None = None
    sol_floor_ms: float | None = None
    device: str = "cpu"
    shapes: dict[str, int] = field(
        default_factory=dict
    )  # shape sites (constants, get_inputs size literals) the main trials used
    alt_shapes: dict[str, int] = field(default_factory=dict)  # the extra trial's shapes ({} if none ran)
    distributions: list[str] = field(
        default_factory=list
    )  # input distributions of the trials ("problem": get_inputs as written)
    trial_purposes: list[str] = field(default_factory=list)  # what each trial is there to catch, in trial-label order
    other_shape_trials: list[int] = field(default_factory=list)  # labels of the trials at other shapes than `shapes`
    draw_mode: str = "built"  # how weights and arguments were redrawn (draws.DRAW_MODES: signed, kept_sign, built)
    varied_integers: dict[str, int] = field(default_factory=dict)  # constructor integers the odd-variant trials change
    # what this verdict could not judge, each saying where it is judged: on CPU, sizes over the budget, the GPU's side
    # of harmless device paths (device_paths.py), timing, the compiled kernels, autotune's other configs
    untried: list[str] = field(default_factory=list)
    constant_reference: bool = False  # the reference output was identical on every input set: matching it proves little
    original_shapes: dict[str, int] = field(default_factory=dict)
    trials: int = 0
    sandbox: dict[str, bool] = field(default_factory=dict)  # isolation the candidate's process achieved
    kernel_launches: int = 0
    max_abs_error: float | None = None
    # the LLM judge (judge.py), asked when configured and nothing made the candidate invalid first: pass, fail (then a
    # judge_rejected reason too) or error (no usable answer: advisory, so nothing rejected); None when not asked
    judge: str | None = None
    judge_reason: str = ""  # fail: the judge's reason; error: why there was no usable answer
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)  # where the candidate's run spent its time

    def _has(self, *layers: Layer) -> bool:
        return any(r.code.layer in layers for r in self.reasons)

    @property
    def valid(self) -> bool:
        return not self._has(Layer.FORMAT, Layer.STATIC, Layer.BEHAVIOUR)

    @property
    def compiled(self) -> bool:
        return self.ran and not self._has(Layer.FORMAT, Layer.BUILD)

    @property
    def correct(self) -> bool:
        return self.valid and self.compiled and not self.reasons

    def done(self, stop_speedup: float) -> bool:
        """Whether a refinement conversation stops at this answer: correct and, where speed was measured, fast enough."""
        return self.correct and (self.speedup is None or self.speedup >= stop_speedup)

    @property
    def codes(self) -> list[str]:
        return [r.code.value for r in self.reasons]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["reasons"] = [r.to_dict() for r in self.reasons]
        return {"valid": self.valid, "compiled": self.compiled, "correct": self.correct, **data}
