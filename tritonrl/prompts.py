"""The prompt every model sees: a PyTorch module in, reasoning then one Python block with `ModelNew` out.

Shared by distillation (teacher prompts), augmentation (prompts for shape
variants), SFT (the supervised prompt) and GRPO (rollout prompts), so the
student is trained on exactly what it is later asked. The template is
versioned: change the text, bump PROMPT_VERSION, and every dataset records
which version produced it.

Refinement (multi-turn): `feedback_message` turns the verifier's verdict on
an answer into the next user turn: what failed and what to do, or, for a
correct kernel, how fast it is and the request to make it faster.
`refinement_messages` appends an answer and its feedback to a conversation.
Feedback is built from the Verdict alone, which holds no seeds and no
reference values: the comparison messages say where and by how much (the
max abs error, a statistic of that verification's fresh inputs, which a
later turn never sees again), the tolerance's scale (the reference's RMS) is
cut, the alternate shapes are secret: a reason from the trial at them
carries its code and a fixed text only ("wrong result at the other shape",
"failed at the other shape with ValueError"), never the candidate's text or
a number from that trial (an allow-list: masks miss products and spellings
such as 19601 = 17 × 1153 or m17k1153). Elsewhere, text the candidate
produced (an exception, a crash log) is flattened to one quoted line and
capped, so it cannot pose as the verifier. Versioned like
the prompt (FEEDBACK_VERSION).

Test: tests/test_prompts.py, tests/verify/test_feedback_other_shape.py.
"""

from __future__ import annotations

import builtins
import re

from tritonrl.verify.report import HINTS
from tritonrl.verify.result import Layer, Reason, ReasonCode, Verdict

PROMPT_VERSION = "tritonrl-prompt-v1"
FEEDBACK_VERSION = "tritonrl-feedback-v4"

SYSTEM = "You are an expert GPU kernel engineer. You rewrite PyTorch modules as fast, correct Triton kernels."

USER_TEMPLATE = """Rewrite the PyTorch module below as `ModelNew`, a drop-in replacement whose computation runs in \
Triton kernels (`@triton.jit`) that its `forward` launches.

Rules:
- `ModelNew` takes the same constructor arguments as `Model` and returns the same outputs (shape, dtype, values).
- `forward` may allocate outputs (`torch.empty`, ...), reshape or make tensors contiguous, and launch kernels;
  all arithmetic happens in Triton. No torch compute ops, no calls to nn modules, no other libraries.
- Handle any input size (masks for ragged edges); fp32 inputs need fp32 accuracy (`input_precision="ieee"` for `tl.dot`).

First explain your plan briefly: how the work is split across programs, what each program loads, computes
and stores. Then give the complete code in one ```python block (imports, kernels, `ModelNew`).

```python
{source}
```"""


def build_messages(problem_source: str) -> list[dict[str, str]]:
    """Chat messages for one problem (OpenAI chat format)."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": USER_TEMPLATE.format(source=problem_source.strip())},
    ]


FIX_REQUEST = (
    "Fix the kernel. Briefly say what was wrong and your plan, then give the complete corrected code in one "
    "```python block (imports, kernels, `ModelNew`)."
)
FASTER_REQUEST = (
    "Make it faster while keeping it correct. Briefly say where the time goes and your plan, then give the "
    "complete improved code in one ```python block (imports, kernels, `ModelNew`)."
)
_TOLERANCE_DETAIL = " exceeds the tolerance"  # what follows it in a comparison message names the reference's RMS
REASON_CHARS = 400  # a reason's text in the feedback, at most


# A trial's description (verifier.ReferenceRun.describe): "trial 3 (heavy_tailed inputs, at n=97, m=5)"
_TRIAL_SIZES = re.compile(r"^trial \d+ \((?:.*?, )?at \w+=\d+")
OTHER_SHAPE = "at the other shape"  # what the feedback calls the alternate-shape trial
# The only text a reason from the other-shape trial carries into the feedback: fixed, one per code.
_AT_OTHER_SHAPE: dict[ReasonCode, str] = {
    ReasonCode.SHAPE_MISMATCH: "an output's shape is wrong at the other shape",
    ReasonCode.DTYPE_MISMATCH: "an output's dtype is wrong at the other shape",
    ReasonCode.NON_FINITE: "NaN/inf in the output at the other shape",
    ReasonCode.WRONG_RESULT: "wrong result at the other shape",
    ReasonCode.TIMEOUT: "ran too long at the other shape",
}
_RAISED = re.compile(r"^(?:trial \d+[^:]*: )?(\w+): ")  # child._describe: "ValueError: ... (at file.py:31)"
_KNOWN_EXCEPTIONS = frozenset(
    {
        *(n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)),
        "OutOfMemoryError",
        "AcceleratorError",
        "CompilationError",
        "HandoffError",
    }
)


def _alternate_trial(message: str, verdict: Verdict) -> bool:
    """Whether `message` reports a trial at other shapes: by its description, label or stage."""
    if not verdict.other_shape_trials:
        return False
    labels = "|".join(str(label) for label in verdict.other_shape_trials)
    return bool(
        _TRIAL_SIZES.match(message)
        or re.match(rf"(?:trial|outputs) (?:{labels})\b", message)
        or re.search(rf"\bduring trial (?:{labels})\b", message)
    )


def _other_shape_text(code: ReasonCode, message: str) -> str:
    """The fixed text for a reason at the other shape: nothing the candidate wrote, no number from that trial."""
    if code in _AT_OTHER_SHAPE:
        return _AT_OTHER_SHAPE[code]
    raised = _RAISED.match(message)
    if raised and raised.group(1) in _KNOWN_EXCEPTIONS:
        return f"failed {OTHER_SHAPE} with {raised.group(1)}"
    return f"failed {OTHER_SHAPE}"


def _reason_text(message: str) -> str:
    """A reason's message as one line the candidate cannot dress up as the verifier's own text."""
    if _TOLERANCE_DETAIL in message:
        message = message.split(_TOLERANCE_DETAIL, 1)[0] + _TOLERANCE_DETAIL
    flat = " ".join(message.split())
    return repr(flat[:REASON_CHARS] + ("…" if len(flat) > REASON_CHARS else ""))


def _feedback_text(reason: Reason, verdict: Verdict) -> str:
    if _alternate_trial(reason.message, verdict):
        return repr(_other_shape_text(reason.code, reason.message))
    return _reason_text(reason.message)


def _shapes(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def feedback_message(verdict: Verdict) -> str:
    """The user turn that follows an answer: the verifier's findings and what to do next (FEEDBACK_VERSION)."""
    if verdict.correct:
        lines = ["The verifier accepted your kernel: it is correct on every trial."]
        if verdict.speedup is None:
            lines.append("Its speed was not measured here (no GPU).")
        else:
            lines.append(
                f"It takes {verdict.candidate_ms:.4g} ms where PyTorch takes {verdict.baseline_ms:.4g} ms: "
                f"a speed-up of {verdict.speedup:.2f}x."
                if verdict.candidate_ms and verdict.baseline_ms
                else f"Its speed-up over PyTorch is {verdict.speedup:.2f}x."
            )
        if verdict.sol_fraction is not None:
            lines.append(
                f"It reaches {verdict.sol_fraction:.0%} of the speed of light (the time this problem's "
                "memory traffic and arithmetic need at the GPU's peak bandwidth and compute)."
            )
        if verdict.triton_time_share is not None:
            lines.append(f"{verdict.triton_time_share:.0%} of its GPU time is spent in your Triton kernels.")
        return "\n".join([*lines, "", FASTER_REQUEST])
    lines = ["The verifier rejected your answer:"]
    for reason in verdict.reasons:
        lines.append(f"- [{reason.code.value}] {_feedback_text(reason, verdict)}")
        lines.append(f"  What to do: {HINTS[reason.code]}")
    if any(r.code.layer is Layer.OUTPUT for r in verdict.reasons):  # it ran and was wrong: where it was tried
        tested = _shapes(verdict.shapes) or "its own shapes"
        alt = " and at other shapes" if verdict.other_shape_trials else ""
        lines.append(f"It was run on fresh random inputs at {tested}{alt}.")
    return "\n".join([*lines, "", FIX_REQUEST])


def refinement_messages(messages: list[dict[str, str]], response: str, verdict: Verdict) -> list[dict[str, str]]:
    """`messages` continued by the model's `response` and the verifier's feedback on it: the next turn's prompt."""
    return [
        *messages,
        {"role": "assistant", "content": response},
        {"role": "user", "content": feedback_message(verdict)},
    ]
