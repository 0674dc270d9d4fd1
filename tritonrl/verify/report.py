"""A verdict as text a person can read and act on (the CLI's default output)."""

from __future__ import annotations

from tritonrl.verify.result import ReasonCode, Verdict

# What to do about each failure, in one line.
HINTS: dict[ReasonCode, str] = {
    ReasonCode.NO_CODE: "put the solution in one ```python block defining class ModelNew",
    ReasonCode.SYNTAX_ERROR: "fix the Python syntax error at the line shown",
    ReasonCode.NO_MODELNEW: "define class ModelNew(nn.Module) with Model's constructor signature",
    ReasonCode.NO_TRITON_KERNEL: "write the computation as a @triton.jit kernel",
    ReasonCode.KERNEL_NOT_REACHABLE: "launch your kernel (kernel[grid](...)) from ModelNew.forward",
    ReasonCode.FORBIDDEN_TORCH_OP: "move this computation into a Triton kernel; forward may only allocate, reshape and launch",
    ReasonCode.FORBIDDEN_MODULE_CALL: "keep nn modules as parameter holders; pass their .weight/.bias to your kernel",
    ReasonCode.FORBIDDEN_IMPORT: "import only torch, triton and the standard math/typing helpers",
    ReasonCode.DYNAMIC_CODE: "write the code directly: no exec/eval/getattr tricks",
    ReasonCode.TORCH_COMPILE: "torch.compile/jit generate the kernels for you; write them in Triton",
    ReasonCode.CUDA_EXTENSION: "this task wants Triton, not CUDA/C++ extensions",
    ReasonCode.MONKEYPATCH: "do not modify torch, triton or the harness",
    ReasonCode.STREAM_OR_THREAD: "launch on the default stream from the calling thread",
    ReasonCode.HOST_ROUNDTRIP: "keep data on the device; compute in the kernel, not in numpy/Python",
    ReasonCode.REFERENCE_MODEL_USE: "do not use or inherit the reference Model",
    ReasonCode.EXCEPTION_FALLBACK: "remove the try/except around the kernel launch; fix the kernel instead",
    ReasonCode.ENV_OR_NETWORK: "do not read the environment, files or the network",
    ReasonCode.NOT_ALLOWED: "host code only allocates, reshapes, computes sizes and launches kernels; the message names what to write instead",
    ReasonCode.DEVICE_DEPENDENT_PATH: "run the same kernels on every device: no branch on x.is_cuda, the device's type or torch.cuda (a device context around the same launch is fine)",
    ReasonCode.NO_KERNEL_LAUNCHED: "make sure forward really launches your Triton kernel on every call",
    ReasonCode.TRACED_TORCH_COMPUTE: "PyTorch did some of the math; do all of it in Triton kernels",
    ReasonCode.NO_KERNEL_OUTPUT: "allocate each output, pass it to your kernel and store every element there; do not let PyTorch make it from the inputs",
    ReasonCode.INPUT_MUTATED: "write results to a new tensor; leave the inputs untouched",
    ReasonCode.OUTPUT_ALIASES_INPUT: "return a freshly allocated output, not an input or a view of one",
    ReasonCode.OUTPUT_REUSED: "allocate each call's outputs afresh: a later call must not return or overwrite what an earlier one returned",
    ReasonCode.OUTPUT_NOT_TENSOR: "return plain torch.Tensor objects",
    ReasonCode.THREAD_LEFT_RUNNING: "finish all work before forward returns",
    ReasonCode.TIMED_OUTPUT_WRONG: "compute every call from its inputs; do not reuse results across calls",
    ReasonCode.JUDGE_REJECTED: "implement the full computation for any input, not just the test cases",
    ReasonCode.FASTER_THAN_LIGHT: "compute every call's outputs from that call's inputs, inside the call: no results kept between calls",
    ReasonCode.PRECISION_DOWNGRADE: 'keep fp32 data fp32 in tl.dot: tl.dot(a, b, input_precision="ieee") (verify.precision=tf32 allows TF32)',
    ReasonCode.IMPORT_ERROR: "the module fails at import; run it yourself to see the traceback",
    ReasonCode.INIT_ERROR: "ModelNew(*get_init_inputs()) raised; match Model's constructor",
    ReasonCode.COMPILE_ERROR: "the Triton kernel does not compile; check tl.* calls and constexpr arguments",
    ReasonCode.RUNTIME_ERROR: "forward raised; check grid, pointer arithmetic, masks and argument order",
    ReasonCode.TIMEOUT: "the candidate ran too long; look for unbounded loops or a huge grid",
    ReasonCode.CRASHED: "the process died; look for out-of-bounds memory access or process-killing calls",
    ReasonCode.OUT_OF_MEMORY: "allocate only what the output and scratch space need",
    ReasonCode.CUDA_ERROR: "a CUDA error (often an out-of-bounds access): check masks and strides",
    ReasonCode.SHAPE_MISMATCH: "return outputs with exactly the reference's shapes",
    ReasonCode.DTYPE_MISMATCH: "return outputs with the reference's dtype",
    ReasonCode.DEVICE_MISMATCH: "return outputs on the input's device",
    ReasonCode.NON_FINITE: "NaN/inf appeared: check masked loads' `other=` values and uninitialised outputs",
    ReasonCode.WRONG_RESULT: "values differ from the reference: check indexing, masks, reductions and precision",
    ReasonCode.REFERENCE_FAILED: "the problem itself does not run; fix the problem file",
    ReasonCode.SHAPES_UNSUPPORTED: "the problem cannot be shrunk for the CPU interpreter; try --device cuda",
    ReasonCode.SANDBOX_ERROR: "the verifier's sandbox failed; see the message and report it",
    ReasonCode.SANDBOX_BROKEN: "the fork server was lost while this candidate ran; if it repeats, report it",
}


# Failures the user fixes whoever wrote the candidate: the problem or the machine, not the answer.
USER_SIDE = frozenset(
    {ReasonCode.REFERENCE_FAILED, ReasonCode.SHAPES_UNSUPPORTED, ReasonCode.SANDBOX_ERROR, ReasonCode.SANDBOX_BROKEN}
)


def _flag(value: bool) -> str:
    return "yes" if value else "NO"


def render_verdict(verdict: Verdict, problem: str, candidate: str, author_hints: bool = True) -> str:
    """The verdict as a report; `author_hints=False` leaves out the hints meant for whoever wrote the answer
    (a model's answer shown to its user), keeping those the user can act on (USER_SIDE)."""
    shapes = ", ".join(f"{k}={v}" for k, v in verdict.shapes.items()) or "as defined"
    shrunk = {k: v for k, v in verdict.original_shapes.items() if verdict.shapes.get(k) != v}
    shrunk_note = (
        f" (shrunk for the CPU interpreter from {', '.join(f'{k}={v}' for k, v in shrunk.items())})" if shrunk else ""
    )
    speedup = f"{verdict.speedup:.2f}×" if verdict.speedup is not None else "n/a (timing runs on cuda only)"
    alt = ", ".join(f"{k}={v}" for k, v in verdict.alt_shapes.items())
    planned = f"{verdict.trials - 1} trials + 1 at {alt}" if alt else f"{verdict.trials} trials"
    trials = (
        f"{planned}, fresh secret-seeded inputs each"
        if verdict.ran
        else f"not completed: the candidate was rejected first ({planned} planned)"
    )
    lines = [
        f"{'CORRECT' if verdict.correct else 'REJECTED'}: {candidate} for {problem}",
        f"  device    {verdict.device}, shapes {shapes}{shrunk_note}",
        f"  trials    {trials}",
        f"  inputs    {', '.join(verdict.distributions) or 'as defined'} (distributions of the float inputs)",
        f"  valid     {_flag(verdict.valid)}",
        f"  compiled  {_flag(verdict.compiled)}",
        f"  correct   {_flag(verdict.correct)}",
        f"  speedup   {speedup}",
        *(
            [f"  light     {verdict.sol_fraction:.0%} of the speed of light ({verdict.sol_ms:.4g} ms)"]
            if verdict.sol_fraction is not None
            else []
        ),
        f"  kernels   {verdict.kernel_launches} launches"
        + (f", max abs error {verdict.max_abs_error:.3g}" if verdict.max_abs_error is not None else ""),
        *(
            [
                f"  judge     {verdict.judge}"
                + (
                    f", no verdict (advisory, nothing rejected): {verdict.judge_reason}"
                    if verdict.judge == "error"
                    else ""
                )
            ]
            if verdict.judge is not None
            else []
        ),
    ]
    if verdict.constant_reference:
        lines.append(
            "Note: the reference output was identical on every input set, so it does not depend on the inputs "
            "and matching it proves little about the kernel."
        )
    if verdict.reasons:
        lines.append("Reasons:")
        for reason in verdict.reasons:
            lines.append(f"  - [{reason.code.value}] {reason.message}")
            if author_hints or reason.code in USER_SIDE:
                lines.append(f"    what to do: {HINTS[reason.code]}")
    lines.append(f"({verdict.seconds:.1f} s)")
    return "\n".join(lines)
