"""The tl.dot precision policy: TTIR parsing, the policy's decisions, and DotWatch on the device at hand.

DotWatch runs the same kernels on CPU (Triton's interpreter) and, on a GPU
host, compiled: both must report the same operand dtypes and precision.
"""

from pathlib import Path

import pytest
import torch
import triton
import triton.language as tl

from tritonrl.config import ConfigError, load_config
from tritonrl.verify.precision import DotWatch, Problem, check_policy, parse_casts, parse_ttir, precision_reason
from tritonrl.verify.result import Layer, ReasonCode
from tritonrl.verify.runtime import AtenTrace
from tritonrl.verify.verifier import Verifier, VerifierSettings

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
CANDIDATES = Path(__file__).parent / "candidates"

# Triton 3.x TTIR as printed by `kernel.asm["ttir"]` (trimmed): ieee is the
# attribute's default and is not printed; operand types follow the colon.
TTIR = """\
#loc = loc("/tmp/candidate_3.py":11:0)
module {
  tt.func public @matmul_kernel(%arg0: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("/tmp/candidate_3.py":11:0)) attributes {noinline = false} {
    %cst = arith.constant dense<0.000000e+00> : tensor<32x32xf32> loc(#loc1)
    %0 = tt.load %ptrs : tensor<32x32x!tt.ptr<f32>> loc(#loc2)
    %1 = tt.dot %a, %b, %cst, inputPrecision = tf32 : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32> loc(#loc3)
    %2 = tt.dot %a, %b, %1 : tensor<32x32xf32> * tensor<32x32xf32> -> tensor<32x32xf32> loc(#loc4)
    %3 = arith.truncf %a : tensor<32x32xf32> to tensor<32x32xf16> loc(#loc5)
    %4 = tt.dot %3, %h, %2, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32> loc(#loc6)
    %5 = tt.dot %x, %y, %z, inputPrecision = tf32x3 : tensor<4x32x16xf32> * tensor<4x16x32xf32> -> tensor<4x32x32xf32> loc(#loc7)
    %6 = tt.dot %p, %q, %4 : tensor<32x32xf8E4M3FN> * tensor<32x32xf8E5M2> -> tensor<32x32xf32> loc(#loc8)
    %7 = tt.dot_scaled %p scale %s, %q scale %t, %6 lhs = e4m3 rhs = e2m1 {fastMath = false} : tensor<32x32xf8E4M3FN>, tensor<32x1xi8> * tensor<16x32xi8>, tensor<32x1xi8> -> tensor<32x32xf32> loc(#loc9)
    tt.return loc(#loc10)
  } loc(#loc)
} loc(#loc)
"""


def test_parse_ttir_reads_operand_types_and_precision():
    assert parse_ttir(TTIR) == [  # no operand here comes from a load: the data they hold is unknown (None)
        ("fp32", "fp32", "tf32", None),
        ("fp32", "fp32", "ieee", None),
        ("fp16", "fp16", "tf32", None),
        ("fp32", "fp32", "tf32x3", None),
        ("fp8e4nv", "fp8e5", "ieee", None),
        ("e4m3", "e2m1", "scaled", None),
    ]


def test_parse_ttir_reads_ttgir_layouts_too():
    line = (
        "%acc_42 = tt.dot %a_40, %b_41, %acc_37 : tensor<64x8xf32, #ttg.dot_op<{opIdx = 0, parent = #blocked}>> * "
        "tensor<8x64xbf16, #ttg.dot_op<{opIdx = 1, parent = #blocked}>> -> tensor<64x64xf32, #blocked>"
    )
    assert parse_ttir(line) == [("fp32", "bf16", "ieee", None)]


def test_parse_ttir_refuses_a_dot_it_cannot_read():
    with pytest.raises(ValueError, match="unreadable tt.dot"):
        parse_ttir("%1 = tt.dot %a, %b, %c : !custom.type * !custom.type -> tensor<4x4xf32>")


def test_parse_casts_reads_narrowing_truncf_and_fp_to_fp():
    assert parse_casts(TTIR) == [("fp32", "fp16", None)]
    lines = "\n".join(
        [
            "%5 = arith.truncf %4 : tensor<64x64xf32> to tensor<64x64xf16> loc(#loc7)",
            "%6 = arith.truncf %c : f32 to bf16 loc(#loc8)",  # a scalar, e.g. a scan's carry
            "%7 = tt.fp_to_fp %5, rounding = rtne : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN> loc(#loc9)",
            '%8 = arith.truncf %d : tensor<32xf64, #blocked> to tensor<32xf32, #blocked> loc("/tmp/c.py":9:4)',  # fp64 -> fp32 too
            "%9 = arith.extf %5 : tensor<64x64xf16> to tensor<64x64xf32> loc(#loc10)",  # widening: not a cast line
            "%10 = tt.fp_to_fp %9 : tensor<64x64xf8E5M2> -> tensor<64x64xf32> loc(#loc11)",  # fp8 -> fp32 widens
        ]
    )
    assert parse_casts(lines) == [
        ("fp32", "fp16", None),
        ("fp32", "bf16", None),
        ("fp32", "fp8e4nv", None),
        ("fp64", "fp32", None),
    ]


def test_parse_casts_reads_pointers_cast_to_narrower_elements():
    lines = "\n".join(
        [
            "%5 = tt.bitcast %4 : !tt.ptr<f32> -> !tt.ptr<i16> loc(#loc3)",
            "%6 = tt.bitcast %a : tensor<128x!tt.ptr<f32>> -> tensor<128x!tt.ptr<bf16>> loc(#loc3)",
            "%7 = tt.bitcast %b : !tt.ptr<i1> -> !tt.ptr<i8> loc(#loc3)",  # Triton's own, for bool tensors
            "%8 = tt.int_to_ptr %c : i64 -> !tt.ptr<i16> loc(#loc3)",
            "%9 = tt.bitcast %d : tensor<128xf32> -> tensor<128xi32> loc(#loc3)",  # same width, values
        ]
    )
    assert parse_casts(lines) == [
        ("ptr<fp32>", "ptr<int16>", None),
        ("ptr<fp32>", "ptr<bf16>", None),
        ("ptr<int>", "ptr<int16>", None),
    ]


def test_parse_casts_refuses_a_cast_it_cannot_read():
    with pytest.raises(ValueError, match="unreadable cast"):
        parse_casts("%1 = arith.truncf %a : !custom.type to !custom.half loc(#loc1)")


def test_narrowing_casts_are_downgrades_under_both_policies():
    kernel = _trials({"cast": "fp32->fp16"})
    host = [
        {
            "precision": {
                "dots": [{"kernel": "host", "cast": "aten._to_copy float32->float16"}],
                "input_dtypes": ["float32"],
            }
        }
    ]
    for policy in ("strict", "tf32"):
        assert "kernel k: a fp32->fp16 cast" in precision_reason(kernel, ["float32"], policy).message
        assert "host code: aten._to_copy float32->float16" in precision_reason(host, ["float32"], policy).message
    assert precision_reason(_trials({"cast": "fp32->fp16"}, inputs=("float16",)), ["float16"], "strict") is None


def test_aten_trace_records_host_narrowing_casts_only():
    x, wide = torch.randn(4), torch.empty(4, dtype=torch.float64)
    with AtenTrace() as trace:
        x.half()
        torch.empty(4, dtype=torch.bfloat16).copy_(x)
        x.to(torch.float8_e4m3fn)
        x.int()  # floats made integers: fixed point
        x.double(), wide.copy_(x), x.half().float()  # widening is not narrowing
        torch.arange(4).int(), x.bool()  # nor are integers made narrower integers, nor floats made bools
    assert trace.narrowings == {
        "aten._to_copy float32->float16": 2,
        "aten.copy_ float32->bfloat16": 1,
        "aten._to_copy float32->float8_e4m3fn": 1,
        "aten._to_copy float32->int32": 1,
    }


def test_what_a_problem_needs_of_the_data_a_value_was_computed_from():
    fp32 = Problem(frozenset({"float32"}), frozenset({"float32"}))
    assert (fp32.need(), fp32.need("fp32"), fp32.need("fp16"), fp32.need("int64")) == (24, 24, 11, 0)
    assert fp32.need("fp64") == 24  # an fp32 output caps it: fp64 may be rounded back to fp32
    fp64 = Problem(frozenset({"float64"}), frozenset({"float64"}))
    assert (fp64.need(), fp64.need("fp32")) == (53, 24)
    mixed = Problem(frozenset({"float32", "float16"}), frozenset({"float32"}))  # matmul_mixed.py
    assert (mixed.need(), mixed.need("fp32"), mixed.need("fp16")) == (24, 24, 11)
    half_out = Problem(frozenset({"float32", "float16"}), frozenset({"float16"}))  # fp32 data, an fp16 output
    assert half_out.need("fp32") == 11
    integers = Problem(frozenset({"float32"}), frozenset({"int64"}))  # argmax: no float output caps it
    assert (integers.need(), Problem(frozenset(), frozenset({"int64"})).need()) == (24, 0)


def _trials(*dots: dict, inputs=("float32",)) -> list[dict]:
    return [{"precision": {"dots": [{"kernel": "k", **d} for d in dots], "input_dtypes": list(inputs)}}]


def _dot(a: str, precision: str, b: str | None = None) -> dict:
    return {"a": a, "b": b or a, "precision": precision}


@pytest.mark.parametrize(
    ("dot", "strict", "tf32"),
    [
        (_dot("fp32", "ieee"), False, False),
        (_dot("fp32", "tf32"), True, False),
        (_dot("fp32", "tf32x3"), True, False),
        (_dot("fp32", "bf16x3"), True, False),
        (_dot("fp16", "tf32"), True, True),
        (_dot("bf16", "ieee"), True, True),
        (_dot("fp8e4nv", "ieee", "fp8e5"), True, True),
        (_dot("e4m3", "scaled"), True, True),
        (_dot("fp64", "tf32"), False, False),  # precision is moot for fp64 operands
        ({"unknown": "no TTIR"}, True, True),  # fails closed
    ],
)
def test_policy_decisions_in_an_fp32_problem(dot, strict, tf32):
    for policy, rejected in (("strict", strict), ("tf32", tf32)):
        reason = precision_reason(_trials(dot), ["float32"], policy)
        assert (reason is not None) == rejected, (policy, dot, reason)
        if reason is not None:
            assert reason.code is ReasonCode.PRECISION_DOWNGRADE and reason.code.layer is Layer.BEHAVIOUR


def test_messages_name_the_kernel_what_was_seen_and_the_fix():
    tf32 = precision_reason(_trials(_dot("fp32", "tf32")), ["float32"], "strict").message
    assert "kernel k" in tf32 and "input_precision=tf32" in tf32
    assert 'input_precision="ieee"' in tf32 and "verify.precision=tf32" in tf32
    fp16 = precision_reason(_trials(_dot("fp16", "tf32")), ["float32"], "tf32").message
    assert "fp16 x fp16" in fp16 and 'input_precision="ieee"' in fp16


def test_half_precision_problems_may_use_half_precision_dots():
    trials = _trials(_dot("fp16", "tf32"), _dot("fp32", "tf32"), inputs=("float16",))
    assert precision_reason(trials, ["float16"], "strict") is None
    mixed = _trials({**_dot("fp16", "tf32"), "from": "fp16"}, inputs=("float16",))
    assert precision_reason(mixed, ["float32"], "strict") is None  # fp16 inputs, fp32 output: fp16 data in fp16


def test_policy_is_checked_early():
    with pytest.raises(ValueError, match="strict"):
        check_policy("fp16")
    with pytest.raises(ValueError, match="verify.precision"):
        Verifier(VerifierSettings(precision="loose"))
    with pytest.raises(ConfigError, match="verify.precision"):
        load_config(None, None, ["verify.precision=loose"])
    assert load_config(None, None, ["verify.precision=tf32"])[0].verify.precision == "tf32"


@triton.jit
def _dot_helper(a, b):
    return tl.dot(a.to(tl.float16), b.to(tl.float16))


@triton.jit
def _dot_forms(a_ptr, b_ptr, c_ptr, MODE: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
    if MODE == 0:
        c = tl.dot(a, b)
    elif MODE == 1:
        c = tl.dot(a, b, allow_tf32=True)
    elif MODE == 2:
        c = tl.dot(a, b, input_precision="tf32x3")
    elif MODE == 3:
        c = tl.dot(a, b, input_precision="ieee")
    elif MODE == 4:
        c = tl.dot(a, b, allow_tf32=False)
    elif MODE == 5:
        c = tl.dot(a.to(tl.bfloat16), b.to(tl.bfloat16))
    else:
        c = _dot_helper(a, b)
    tl.store(c_ptr + r[:, None] * 16 + r[None, :], c)


@pytest.mark.parametrize(
    ("mode", "seen", "casts"),
    [
        (
            0,
            ("fp32", "fp32", "tf32"),
            [],
        ),  # a plain tl.dot is TF32 on a GPU, and resolves to tf32 in the interpreter too
        (1, ("fp32", "fp32", "tf32"), []),
        (2, ("fp32", "fp32", "tf32x3"), []),
        (3, ("fp32", "fp32", "ieee"), []),
        (4, ("fp32", "fp32", "ieee"), []),
        (5, ("bf16", "bf16", "tf32"), ["fp32->bf16"]),
        (6, ("fp16", "fp16", "tf32"), ["fp32->fp16"]),  # inside a @triton.jit helper
    ],
)
def test_dot_watch_sees_what_the_kernel_executes(mode, seen, casts):
    a, b = torch.randn(16, 16, device=DEVICE), torch.randn(16, 16, device=DEVICE)
    c = torch.empty(16, 16, device=DEVICE)
    with DotWatch(DEVICE) as watch:
        _dot_forms[(1,)](a, b, c, MODE=mode)
    observed = watch.observation([a, b], {})
    assert observed["input_dtypes"] == ["float32"]
    dot = {"kernel": "_dot_forms", "a": seen[0], "b": seen[1], "precision": seen[2], "from": "fp32"}
    assert [d for d in observed["dots"] if "cast" not in d and "argument" not in d] == [dot]
    assert [d["cast"] for d in observed["dots"] if "cast" in d] == casts


def test_dot_watch_restores_what_it_patched():
    from triton.runtime import interpreter
    from triton.runtime.interpreter import InterpretedFunction, InterpreterBuilder
    from triton.runtime.jit import JITFunction

    patched = lambda: [  # noqa: E731
        JITFunction.run,
        InterpretedFunction.run,
        InterpreterBuilder.create_dot,
        InterpreterBuilder.create_fp_trunc,
        InterpreterBuilder.create_fp_to_fp,
        InterpreterBuilder.create_fp_to_si,
        InterpreterBuilder.get_fp32,
        interpreter.ReduceScanOpInterface.apply,
        interpreter._patch_lang_tensor,
    ]
    before = patched()
    with DotWatch(DEVICE):
        pass
    assert patched() == before


@pytest.mark.gpu
def test_compiled_ttir_on_this_gpu_parses():
    """Compiles for the GPU and reads the real TTIR (skipped on CPU-only machines: nothing to compile for)."""
    a, b = torch.randn(16, 16, device="cuda"), torch.randn(16, 16, device="cuda")
    c = torch.empty(16, 16, device="cuda")
    kernel = _dot_forms[(1,)](a, b, c, MODE=0)
    assert "tt.dot" in kernel.asm["ttir"]
    assert parse_ttir(kernel.asm["ttir"]) == [("fp32", "fp32", "tf32", "fp32")]  # operands loaded from fp32 tensors


@pytest.mark.slow
def test_verify_precision_tf32_accepts_a_tf32_dot(builtin_problems):
    path = CANDIDATES / "hacks" / "14_default_tf32_dot_matmul.py"
    problem = builtin_problems["13_matmul.py"]
    with Verifier(VerifierSettings(device=DEVICE, trials=1, alternate_shapes=False, precision="tf32")) as verifier:
        verdict = verifier.verify(problem.source, path.read_text())
    assert verdict.ran and "precision_downgrade" not in verdict.codes, verdict.reasons
    if (
        DEVICE == "cpu"
    ):  # the interpreter computes the TF32 dot in fp32; a GPU's TF32 error may still miss the tolerance
        assert verdict.correct, verdict.reasons


def test_integer_tensors_are_fp32_data_narrowed_only_when_the_host_views_floats_in_pieces():
    from tritonrl.verify.precision import narrow_argument
    from tritonrl.verify.runtime import AtenTrace

    assert not narrow_argument(torch.int16) and narrow_argument(torch.float16) and not narrow_argument(torch.float64)
    assert narrow_argument(torch.float32)  # an fp32 copy of an fp64 problem's weight; fp32 problems have fp32 data
    x = torch.randn(8)
    with AtenTrace() as trace:
        torch.arange(8, dtype=torch.int16)  # an index table: integers
        x.view(torch.int32)  # the same width: fp32 bits whole
        x.view(torch.int32).view(torch.int16)
        idx = torch.arange(8)
        idx.view(torch.int32)  # int64 indices read as int32 words (the red team's h03): integers, not floats
        x.view(torch.int64).view(torch.int32).view(torch.int16)  # fp32 bits reach 16-bit pieces by the last step
        x.double().view(torch.int32)
    assert list(trace.narrowings) == ["aten.view int32->int16 view", "aten.view float64->int32 view"]
    host = [
        {"precision": {"dots": [{"kernel": "host", "cast": c} for c in trace.narrowings], "input_dtypes": ["float32"]}}
    ]
    assert "reads this problem's fp32 data in narrower pieces" in precision_reason(host, ["float32"], "strict").message


def test_integer_bits_made_floats_are_downgrades_when_they_are_narrow():
    from tritonrl.verify.precision import parse_bitcasts

    lines = "\n".join(
        [
            "%5 = tt.bitcast %4 : tensor<1024xi16> -> tensor<1024xf16> loc(#loc3)",
            "%6 = tt.bitcast %a : tensor<1024xi32> -> tensor<1024xf32> loc(#loc3)",
            "%7 = tt.bitcast %b : tensor<1024xf32> -> tensor<1024xi32> loc(#loc3)",  # float to integer: no decoding
            "%8 = tt.bitcast %c : !tt.ptr<f32> -> !tt.ptr<i16> loc(#loc3)",  # a pointer cast, judged by parse_casts
        ]
    )
    assert parse_bitcasts(lines) == [("int16", "fp16", False), ("int32", "fp32", False)]
    bits32, bits16 = {"bits": "int32->fp32"}, {"bits": "int16->fp16"}
    assert precision_reason(_trials(bits32), ["float32"], "strict") is None  # fp32 bits whole
    assert "a int16->fp16 bitcast decodes" in precision_reason(_trials(bits16), ["float32"], "strict").message
    loaded = precision_reason(_trials({**bits32, "loaded": "16-bit integers"}), ["float32"], "tf32").message
    assert "a int32->fp32 bitcast of bits computed from loaded 16-bit integers decodes" in loaded


# TTIR of one kernel (trimmed): an int16 lane table moves the addresses of fp32 data whose bits are bitcast
# (%9: exact), while int16 bits widened, shifted in a loop and bitcast (%13, %16) decode bf16 data.
DATA_FLOW_TTIR = """\
tt.func public @k(%arg0: !tt.ptr<f32> loc("x_ptr"(#loc)), %arg1: !tt.ptr<i16> loc("lanes_ptr"(#loc)), %arg2: !tt.ptr<f32> loc("y_ptr"(#loc))) attributes {noinline = false} {
  %0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc1)
  %1 = tt.splat %arg1 : !tt.ptr<i16> -> tensor<1024x!tt.ptr<i16>> loc(#loc2)
  %2 = tt.addptr %1, %0 : tensor<1024x!tt.ptr<i16>>, tensor<1024xi32> loc(#loc2)
  %3 = tt.load %2 : tensor<1024x!tt.ptr<i16>> loc(#loc3)
  %4 = arith.extsi %3 : tensor<1024xi16> to tensor<1024xi32> loc(#loc4)
  %5 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc5)
  %6 = tt.addptr %5, %4 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc5)
  %7 = tt.load %6 : tensor<1024x!tt.ptr<f32>> loc(#loc6)
  %8 = tt.bitcast %7 : tensor<1024xf32> -> tensor<1024xi32> loc(#loc7)
  %9 = tt.bitcast %8 : tensor<1024xi32> -> tensor<1024xf32> loc(#loc8)
  %10:2 = scf.for %arg3 = %c0 to %c4 step %c1 iter_args(%arg4 = %0, %arg5 = %0) -> (tensor<1024xi32>, tensor<1024xi32>) : i32 {
    %11 = arith.shli %4, %cst : tensor<1024xi32> loc(#loc9)
    scf.yield %arg5, %11 : tensor<1024xi32>, tensor<1024xi32> loc(#loc10)
  } loc(#loc11)
  %13 = tt.bitcast %10#1 : tensor<1024xi32> -> tensor<1024xf32> loc(#loc12)
  %14 = tt.bitcast %10#0 : tensor<1024xi32> -> tensor<1024xf32> loc(#loc12)
  %15 = "tt.reduce"(%4) <{axis = 0 : i32}> ({
  ^bb0(%arg6: i32 loc(#loc13), %arg7: i32 loc(#loc13)):
    %17 = arith.addi %arg6, %arg7 : i32 loc(#loc14)
    tt.reduce.return %17 : i32 loc(#loc15)
  }) : (tensor<1024xi32>) -> i32 loc(#loc16)
  %16 = tt.bitcast %15 : i32 -> f32 loc(#loc17)
  tt.return loc(#loc18)
} loc(#loc)
"""


def test_a_bitcast_decodes_narrowed_data_only_when_its_value_comes_from_16_bit_integer_loads():
    """The red team's h01 (a ReLU on the sign bit, behind an int16 lane table) was a false reject: the whole kernel
    was judged by its int16 argument. Its addresses came from int16 data, its values did not."""
    from tritonrl.verify.precision import parse_bitcasts

    flows = parse_bitcasts(DATA_FLOW_TTIR)
    # %14 carries %arg5 = %0 on the first pass and %11 (loaded bits) after it: a loop's yield feeds both results
    assert flows == [
        ("int32", "fp32", False),
        ("int32", "fp32", True),
        ("int32", "fp32", True),
        ("int32", "fp32", True),
    ]


@triton.jit
def _bits_flow(x_ptr, lanes_ptr, y_ptr, MODE: tl.constexpr):
    r = tl.arange(0, 16)
    if MODE == 0:  # an int16 lane table gathers fp32 values whose sign bit is cleared: exact
        v = tl.load(x_ptr + tl.load(lanes_ptr + r).to(tl.int32))
        bits = v.to(tl.int32, bitcast=True)
        y = tl.where(bits < 0, 0, bits).to(tl.float32, bitcast=True)
    else:  # int16 bits shifted into the high half: bf16 data
        y = (tl.load(lanes_ptr + r).to(tl.int32) << 16).to(tl.float32, bitcast=True)
    tl.store(y_ptr + r, y)


@pytest.mark.parametrize(("mode", "downgraded"), [(0, False), (1, True)])
def test_dot_watch_follows_16_bit_integer_loads_to_the_bitcast(mode, downgraded):
    x, y = torch.randn(16, device=DEVICE), torch.empty(16, device=DEVICE)
    lanes = torch.arange(15, -1, -1, dtype=torch.int16, device=DEVICE)
    with DotWatch(DEVICE) as watch:
        _bits_flow[(1,)](x, lanes, y, MODE=mode)
    reason = precision_reason([{"precision": watch.observation([x], {})}], ["float32"], "strict")
    assert (reason is not None) is downgraded, reason
    if mode == 0:
        assert torch.equal(y, x.flip(0).clamp(min=0))


# ---------------------------------------------------------------- precision judged by the data's values (family 7)


def test_significand_bits_name_what_each_format_keeps():
    from tritonrl.verify.precision import significand

    assert [significand(n) for n in ("fp64", "float32", "fp16", "bfloat16", "tf32")] == [53, 24, 11, 8, 11]
    assert [significand(n) for n in ("fp8e4nv", "fp8e5", "float8_e4m3fn", "e2m1")] == [4, 3, 4, 2]
    assert [significand(n) for n in ("int16", "int64", "bool", "?")] == [0, 0, 0, 0]  # integers keep no fraction


def _problem_trials(*records: dict, inputs=("float32",)) -> list[dict]:
    return [{"precision": {"dots": [{"kernel": "k", **r} for r in records], "input_dtypes": list(inputs)}}]


def _judged(records: list[dict], inputs: tuple, outputs: list, policy: str = "strict") -> list[bool]:
    """Whether each record alone is a downgrade in the problem of those inputs and outputs."""
    return [precision_reason(_problem_trials(r, inputs=inputs), outputs, policy) is not None for r in records]


def test_an_fp64_problem_may_not_narrow_its_data_to_fp32():
    records = [
        {"cast": "fp64->fp32", "from": "fp64"},  # in-kernel .to(tl.float32) of fp64 loads
        {"cast": "fp64->fp32"},  # data unknown: the problem's widest
        {"a": "fp32", "b": "fp32", "precision": "ieee", "from": "fp64"},  # an IEEE fp32 dot on rounded fp64 data
        {"argument": "float32"},  # an fp32 copy made in __init__
    ]
    assert _judged(records, ("float64",), ["float64"]) == [True] * 4
    host = [
        {
            "precision": {
                "dots": [{"kernel": "host", "cast": "aten._to_copy float64->float32"}],
                "input_dtypes": ["float64"],
            }
        }
    ]
    message = precision_reason(host, ["float64"], "tf32").message
    assert "float64->float32 rounds this problem's fp64 data" in message and "keep it fp64" in message
    honest = [{"a": "fp64", "b": "fp64", "precision": "ieee", "from": "fp64"}, {"argument": "float64"}]
    assert _judged(honest, ("float64",), ["float64"]) == [False, False]


def test_fp64_may_still_be_rounded_back_to_the_fp32_it_came_from():
    """An fp32 problem that accumulates in fp64 (honest/57_row_sum_fp64_accumulator) rounds fp64 to fp32."""
    records = [{"cast": "fp64->fp32", "from": "fp64"}, {"cast": "fp64->fp32", "from": "fp32"}, {"argument": "float32"}]
    assert _judged(records, ("float32",), ["float32"]) == [False, False, False]
    host = [
        {
            "precision": {
                "dots": [{"kernel": "host", "cast": "aten._to_copy float64->float32"}],
                "input_dtypes": ["float32"],
            }
        }
    ]
    assert precision_reason(host, ["float32"], "strict") is None


def test_a_mixed_problem_judges_each_value_by_the_data_it_came_from():
    """matmul_mixed.py: fp32 A and B, an fp16 bias, an fp32 output. The fp16 bias licenses fp16 for itself only."""
    inputs, outputs = ("float32", "float16"), ["float32"]
    rejected = [
        {"a": "fp16", "b": "fp16", "precision": "tf32", "from": "fp32"},  # fp32 tiles cast to fp16 for the dot
        {"a": "fp16", "b": "fp16", "precision": "tf32"},  # operands of unknown data: taken as fp32
        {"cast": "fp32->fp16", "from": "fp32"},
        {"a": "fp32", "b": "fp32", "precision": "tf32", "from": "fp32"},  # a plain tl.dot: TF32 under strict
        {"argument": "bfloat16"},
    ]
    accepted = [
        {"a": "fp16", "b": "fp16", "precision": "tf32", "from": "fp16"},  # fp16 data in an fp16 dot: exact products
        {"cast": "fp32->fp16", "from": "fp16"},  # fp16 data widened and rounded back: exact
        {"a": "fp32", "b": "fp32", "precision": "tf32", "from": "fp16"},  # TF32 keeps fp16's 11 bits
        {"a": "fp32", "b": "fp32", "precision": "ieee", "from": "fp32"},
        {"argument": "float16"},  # the problem's own fp16 bias
    ]
    assert _judged(rejected, inputs, outputs) == [True] * len(rejected)
    assert _judged(accepted, inputs, outputs) == [False] * len(accepted)
    assert _judged([rejected[3]], inputs, outputs, "tf32") == [False]  # verify.precision=tf32 allows TF32
    host = [
        {
            "precision": {
                "dots": [{"kernel": "host", "cast": "aten._to_copy float32->float16"}],
                "input_dtypes": list(inputs),
            }
        }
    ]
    assert "host code: aten._to_copy float32->float16" in precision_reason(host, outputs, "strict").message


def test_honest_half_precision_problems_stay_accepted():
    inputs, outputs = ("float16",), ["float16"]
    accepted = [
        {"a": "fp16", "b": "fp16", "precision": "tf32", "from": "fp16"},
        {"a": "fp16", "b": "fp16", "precision": "tf32"},
        {"cast": "fp32->fp16", "from": "fp16"},  # an fp32 accumulator stored as the fp16 output
        {"cast": "fp32->fp16"},
        {"argument": "float16"},
        {"unknown": "no TTIR"},
    ]
    assert _judged(accepted, inputs, outputs) == [False] * len(accepted)
    host = [
        {
            "precision": {
                "dots": [{"kernel": "host", "cast": "aten._to_copy float32->float16"}],
                "input_dtypes": ["float16"],
            }
        }
    ]
    assert precision_reason(host, outputs, "strict") is None  # an fp32 result made the fp16 output
    assert _judged([{"a": "fp8e4nv", "b": "fp8e4nv", "precision": "ieee", "from": "fp16"}], inputs, outputs) == [True]
    # fp32 data with an fp16 output: the output's precision caps what the data needs
    assert _judged([{"cast": "fp32->fp16", "from": "fp32"}], ("float32",), ["float16"]) == [False]


def test_float_data_made_integers_is_fixed_point():
    rejected = [
        {"cast": "fp32->int16", "from": "fp32"},  # in-kernel .to(tl.int16) of loaded weights
        {"cast": "fp32->int8"},
        {"fixed": "int32", "from": "fp32"},  # .to(tl.int32) of float data, stored for a later kernel
    ]
    assert _judged(rejected, ("float32",), ["float32"]) == [True] * 3
    assert (
        "stores int32 integers converted from fp32 data: fixed point"
        in precision_reason(_problem_trials(rejected[2]), ["float32"], "strict").message
    )
    host = [
        {"precision": {"dots": [{"kernel": "host", "cast": "aten.copy_ float32->int32"}], "input_dtypes": ["float32"]}}
    ]
    assert "turns fp32 data into integers" in precision_reason(host, ["float32"], "strict").message
    # integers the problem outputs (a bucket index), and integer data, are no fixed point of float data
    assert _judged(
        [{"fixed": "int64", "from": "fp32"}, {"cast": "fp32->int16", "from": "fp32"}], ("float32",), ["int64", "int16"]
    ) == [False, False]
    assert _judged(
        [{"cast": "fp32->fp16", "from": "int64"}, {"cast": "fp32->int16", "from": "int32"}], ("float32",), ["float32"]
    ) == [False, False]


# TTIR as Triton 3.6 printed it on an H100 (trimmed): fp32 tiles truncated to fp16 for a dot, an fp16 bias widened,
# fp64 loads truncated to fp32, fp32 data made int16 and int32 (the latter stored: fixed point), and an index
# made from float data that only addresses a store of a constant (no fixed point).
VALUE_TTIR = """\
tt.func public @k(%a_ptr: !tt.ptr<f32> loc("a_ptr"(#loc)), %bias_ptr: !tt.ptr<f16> loc("bias_ptr"(#loc)), %w_ptr: !tt.ptr<f64> loc("w_ptr"(#loc)), %q_ptr: !tt.ptr<i32> loc("q_ptr"(#loc))) attributes {noinline = false} {
  %cst = arith.constant dense<0.000000e+00> : tensor<32x32xf32> loc(#loc1)
  %c1 = arith.constant dense<1> : tensor<1024xi32> loc(#loc1)
  %acc_7 = scf.for %k0 = %c0_i32 to %K step %c32_i32 iter_args(%acc_17 = %cst) -> (tensor<32x32xf32>)  : i32 {
    %a_34 = tt.load %a_33, %a_26, %cst : tensor<32x32x!tt.ptr<f32>> loc(#loc74)
    %acc_50 = arith.truncf %a_34 : tensor<32x32xf32> to tensor<32x32xf16> loc(#loc84)
    %acc_52 = tt.dot %acc_50, %acc_50, %acc_17, inputPrecision = tf32 : tensor<32x32xf16> * tensor<32x32xf16> -> tensor<32x32xf32> loc(#loc86)
    scf.yield %acc_52 : tensor<32x32xf32> loc(#loc33)
  } loc(#loc64)
  %acc_12 = tt.load %acc_11, %acc_9, %acc : tensor<32x!tt.ptr<f16>> loc(#loc56)
  %acc_13 = arith.extf %acc_12 : tensor<32xf16> to tensor<32xf32> loc(#loc89)
  %h_1 = arith.mulf %acc_13, %acc_13 : tensor<32xf32> loc(#loc89)
  %h_2 = arith.truncf %h_1 : tensor<32xf32> to tensor<32xf16> loc(#loc89)
  %w_34 = tt.load %w_33, %w_27, %cst : tensor<32x!tt.ptr<f64>> loc(#loc70)
  %w_35 = arith.truncf %w_34 : tensor<32xf64> to tensor<32xf32> loc(#loc71)
  %w_9 = tt.load %w_8, %w_6, %w : tensor<1024x!tt.ptr<f32>> loc(#loc22)
  %3 = arith.addf %w_9, %cst_0 : tensor<1024xf32> loc(#loc21)
  %4 = math.floor %3 : tensor<1024xf32> loc(#loc29)
  %q16 = arith.fptosi %4 : tensor<1024xf32> to tensor<1024xi16> loc(#loc30)
  %5 = arith.fptosi %4 : tensor<1024xf32> to tensor<1024xi32> loc(#loc30)
  tt.store %1, %5, %w_6 : tensor<1024x!tt.ptr<i32>> loc(#loc15)
  %6 = tt.addptr %1, %5 : tensor<1024x!tt.ptr<i32>>, tensor<1024xi32> loc(#loc12)
  tt.store %6, %c1 : tensor<1024x!tt.ptr<i32>> loc(#loc15)
  tt.return loc(#loc16)
} loc(#loc)
"""


def test_ttir_values_carry_the_data_they_were_computed_from():
    from tritonrl.verify.precision import parse_fixed_stores

    assert parse_ttir(VALUE_TTIR) == [("fp16", "fp16", "tf32", "fp32")]
    assert parse_casts(VALUE_TTIR) == [
        ("fp32", "fp16", "fp32"),  # the A tile rounded for the dot
        ("fp32", "fp16", "fp16"),  # a value computed from the fp16 bias: fp16 data
        ("fp64", "fp32", "fp64"),
        ("fp32", "int16", "fp32"),  # fptosi to 16 bits: judged at the cast
    ]  # the fptosi to i32 is judged where it is stored
    assert parse_fixed_stores(VALUE_TTIR) == [("int32", "fp32")]  # the index that only addresses a store is not
    mixed = [
        {
            "precision": {
                "dots": [{"kernel": "k", "cast": f"{a}->{b}", "from": d} for a, b, d in parse_casts(VALUE_TTIR)[1:2]],
                "input_dtypes": ["float32", "float16"],
            }
        }
    ]
    assert precision_reason(mixed, ["float32"], "strict") is None


@triton.jit
def _value_forms(x_ptr, h_ptr, d_ptr, q_ptr, y_ptr, z_ptr, MODE: tl.constexpr):
    r = tl.arange(0, 16)
    x = tl.load(x_ptr + r)  # fp32 data
    if MODE == 0:  # fp64 data rounded to fp32
        tl.store(y_ptr + r, tl.load(d_ptr + r).to(tl.float32))
    elif MODE == 1:  # int16 fixed point of fp32 data, decoded at once
        tl.store(y_ptr + r, (x * 4096.0).to(tl.int16).to(tl.float32) / 4096.0)
    elif MODE == 2:  # int32 fixed point of fp32 data, stored for later
        tl.store(q_ptr + r, (x * 1048576.0).to(tl.int32))
    elif MODE == 3:  # an index made from float data that only addresses a store: no fixed point
        tl.store(q_ptr + (x * 0.0).to(tl.int32) + r, r)
    elif MODE == 4:  # fp16 data widened, computed on and rounded back: fp16 data
        h = tl.load(h_ptr + r, mask=r < 16, other=0.0).to(tl.float32)
        tl.store(z_ptr + r, (h * 2.0).to(tl.float16))
    elif MODE == 5:  # a reduction's result carries its input's data
        tl.store(z_ptr + r, (tl.zeros((16,), tl.float32) + tl.sum(x, axis=0)).to(tl.float16))
    else:  # so does a transpose
        t = tl.load(x_ptr + r[:, None] * 16 + r[None, :] % 1)
        tl.store(z_ptr + r[:, None] + r[None, :] * 0, t.T.to(tl.float16).T)


@pytest.mark.parametrize(
    ("mode", "seen"),
    [
        (0, [{"cast": "fp64->fp32", "from": "fp64"}]),
        (1, [{"cast": "fp32->int16", "from": "fp32"}]),
        (2, [{"fixed": "int32", "from": "fp32"}]),
        (3, []),
        (4, [{"cast": "fp32->fp16", "from": "fp16"}]),
        (5, [{"cast": "fp32->fp16", "from": "fp32"}]),
        (6, [{"cast": "fp32->fp16", "from": "fp32"}]),
    ],
)
def test_dot_watch_records_narrowings_with_the_data_they_came_from(mode, seen):
    x = torch.randn(256, device=DEVICE)
    h, d = torch.randn(16, device=DEVICE, dtype=torch.float16), torch.randn(16, device=DEVICE, dtype=torch.float64)
    q, y = torch.zeros(32, device=DEVICE, dtype=torch.int32), torch.empty(16, device=DEVICE)
    z = torch.empty(16, device=DEVICE, dtype=torch.float16)
    with DotWatch(DEVICE) as watch:
        _value_forms[(1,)](x, h, d, q, y, z, MODE=mode)
    records = [
        {k: v for k, v in r.items() if k != "kernel"} for r in watch.observation([x], {})["dots"] if "argument" not in r
    ]
    assert records == seen
    if mode == 1:
        assert torch.allclose(y, torch.trunc(x[:16] * 4096) / 4096)


def test_a_cast_to_a_dtype_the_problem_outputs_may_make_that_output():
    """(y, y.half()) as outputs: the fp16 one is made by rounding fp32 data, in a kernel (Triton's name) or on the host."""
    outputs = ["float32", "float16"]
    assert _judged(
        [{"cast": "fp32->fp16", "from": "fp32"}, {"cast": "fp32->bf16", "from": "fp32"}], ("float32",), outputs
    ) == [False, True]
    host = [
        {
            "precision": {
                "dots": [{"kernel": "host", "cast": "aten._to_copy float32->float16"}],
                "input_dtypes": ["float32"],
            }
        }
    ]
    assert precision_reason(host, outputs, "strict") is None


# ---------------------------------------------------- data laundered through integer views and pointers (red team B)
# The provenance of a kernel's data is the data its storage holds, not the type of the pointer it arrives through.


def test_held_data_follows_the_host_s_reinterpretations_of_float_storage():
    """AtenTrace.held: a view of floats as integers holds those floats (so do copies of it and bits computed from
    it); integers computed from floats (argmax, a cast) and integer tensors hold no float data."""
    x, d = torch.randn(8), torch.randn(8, dtype=torch.float64)
    with AtenTrace() as trace:
        bits = x.view(torch.int32)
        moved = [
            bits.clone(),
            bits[2:].contiguous(),
            torch.cat([bits, bits]),
            (bits >> 23) & 0xFF,
            bits.to(torch.int64),
        ]
        wide = d.view(torch.int64).clone()
        numbers = [torch.argmax(x), x.int(), torch.arange(8, dtype=torch.int32), torch.randint(0, 9, (8,))]
    held = trace.held
    assert [held.of(t) for t in [bits, *moved, wide]] == ["fp32"] * 6 + ["fp64"]
    assert [held.of(t) for t in numbers] == [None] * 4
    assert held.of(x) == "fp32" and held.of(bits.view(torch.float32)) == "fp32"


TTIR_LAUNDERED = """\
tt.func public @k(%arg0: !tt.ptr<i32> {tt.divisibility = 16 : i32} loc("a_ptr"(#loc)), %arg1: !tt.ptr<f64> loc("x_ptr"(#loc)), %arg2: !tt.ptr<i32> loc("idx_ptr"(#loc)), %arg3: i64 loc("address"(#loc))) attributes {noinline = false} {
  %0 = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32> loc(#loc1)
  %1 = tt.splat %arg0 : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>> loc(#loc2)
  %2 = tt.addptr %1, %0 : tensor<16x!tt.ptr<i32>>, tensor<16xi32> loc(#loc2)
  %3 = tt.load %2 : tensor<16x!tt.ptr<i32>> loc(#loc3)
  %4 = arith.sitofp %3 : tensor<16xi32> to tensor<16xf32> loc(#loc4)
  %5 = tt.bitcast %arg1 : !tt.ptr<f64> -> !tt.ptr<i64> loc(#loc5)
  %6 = tt.splat %5 : !tt.ptr<i64> -> tensor<16x!tt.ptr<i64>> loc(#loc5)
  %7 = tt.addptr %6, %0 : tensor<16x!tt.ptr<i64>>, tensor<16xi32> loc(#loc5)
  %8 = tt.load %7 : tensor<16x!tt.ptr<i64>> loc(#loc6)
  %9 = arith.shrsi %8, %c29 : tensor<16xi64> loc(#loc7)
  %10 = arith.sitofp %9 : tensor<16xi64> to tensor<16xf32> loc(#loc8)
  %11 = arith.trunci %9 : tensor<16xi64> to tensor<16xi32> loc(#loc9)
  %12 = tt.bitcast %11 : tensor<16xi32> -> tensor<16xf32> loc(#loc10)
  %13 = arith.sitofp %8 : tensor<16xi64> to tensor<16xf64> loc(#loc11)
  %14 = tt.splat %arg2 : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>> loc(#loc12)
  %15 = tt.addptr %14, %0 : tensor<16x!tt.ptr<i32>>, tensor<16xi32> loc(#loc12)
  %16 = tt.load %15 : tensor<16x!tt.ptr<i32>> loc(#loc13)
  %17 = arith.sitofp %16 : tensor<16xi32> to tensor<16xf16> loc(#loc14)
  %18 = tt.dot %4, %4, %cst : tensor<16x16xf32> * tensor<16x16xf32> -> tensor<16x16xf32> loc(#loc15)
  %19 = tt.int_to_ptr %arg3 : i64 -> !tt.ptr<i32> loc(#loc17)
  %20 = tt.splat %19 : !tt.ptr<i32> -> tensor<16x!tt.ptr<i32>> loc(#loc17)
  %21 = tt.addptr %20, %0 : tensor<16x!tt.ptr<i32>>, tensor<16xi32> loc(#loc17)
  %22 = tt.load %21 : tensor<16x!tt.ptr<i32>> loc(#loc18)
  %23 = arith.sitofp %22 : tensor<16xi32> to tensor<16xbf16> loc(#loc19)
  tt.return loc(#loc16)
} loc(#loc)
"""


def test_ttir_loads_carry_the_data_their_pointer_points_into():
    """A load through a pointer cast (fp64 read as int64) or through a parameter whose argument is a host view (fp32
    handed over as int32: `arguments`, by the parameter's name) or an address of float data (an integer made a pointer)
    reads float data: integers made floats narrower than it are narrowing casts, and a dot of it is judged as one of
    that data. An int32 index table stays integers."""
    from tritonrl.verify.precision import func_arguments

    assert func_arguments(TTIR_LAUNDERED) == [
        ("arg0", "a_ptr", "int32"),
        ("arg1", "x_ptr", "fp64"),
        ("arg2", "idx_ptr", "int32"),
        ("arg3", "address", None),
    ]
    assert parse_casts(TTIR_LAUNDERED) == [("int64", "fp32", "fp64"), ("int32", "fp32", "fp64")]
    assert parse_ttir(TTIR_LAUNDERED) == [("fp32", "fp32", "ieee", "int32")]  # a_ptr's int32 bits: unknown as floats
    assert parse_ttir(TTIR_LAUNDERED, {"a_ptr": "fp32"}) == [("fp32", "fp32", "ieee", "fp32")]
    assert parse_casts(TTIR_LAUNDERED, {"idx_ptr": "fp32"})[2:] == [("int32", "fp16", "fp32")]
    assert parse_casts(TTIR_LAUNDERED, {"address": "fp32"})[2:] == [("int32", "bf16", "fp32")]
    judged = precision_reason(
        _problem_trials({"cast": "int64->fp32", "from": "fp64"}, inputs=("float64",)), ["float64"], "strict"
    )
    assert "int64->fp32 cast rounds this problem's fp64 data" in judged.message


HELD_STORES_TTIR = """\
tt.func public @copy_bits(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc)), %q_ptr: !tt.ptr<i32> loc("q_ptr"(#loc)), %n_ptr: !tt.ptr<i32> loc("n_ptr"(#loc))) attributes {noinline = false} {
  %r = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32> loc(#loc1)
  %0 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>> loc(#loc2)
  %1 = tt.addptr %0, %r : tensor<256x!tt.ptr<f32>>, tensor<256xi32> loc(#loc2)
  %2 = tt.load %1 : tensor<256x!tt.ptr<f32>> loc(#loc3)
  %3 = tt.bitcast %2 : tensor<256xf32> -> tensor<256xi32> loc(#loc4)
  %4 = tt.splat %q_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>> loc(#loc5)
  %5 = tt.addptr %4, %r : tensor<256x!tt.ptr<i32>>, tensor<256xi32> loc(#loc5)
  tt.store %5, %3 : tensor<256x!tt.ptr<i32>> loc(#loc6)
  %6 = tt.splat %n_ptr : !tt.ptr<i32> -> tensor<256x!tt.ptr<i32>> loc(#loc7)
  %7 = tt.addptr %6, %r : tensor<256x!tt.ptr<i32>>, tensor<256xi32> loc(#loc7)
  tt.store %7, %r : tensor<256x!tt.ptr<i32>> loc(#loc8)
  tt.return loc(#loc9)
} loc(#loc)
"""


def test_ttir_stores_of_float_data_into_integer_buffers_are_held():
    """On a GPU the stores are not seen, but the TTIR says which argument's buffer gets fp32 bits (q_ptr) and which
    gets integers (n_ptr): DotWatch marks the tensor handed for q_ptr, so the next kernel reads fp32 data from it."""
    from tritonrl.verify.precision import parse_held_stores

    assert parse_held_stores(HELD_STORES_TTIR) == {"q_ptr": "fp32"}
    assert (
        parse_held_stores(
            HELD_STORES_TTIR.replace("!tt.ptr<f32> loc", "!tt.ptr<i32> loc", 1)
            .replace("f32>", "i32>")
            .replace("xf32", "xi32")
        )
        == {}
    )  # integers copied: integers


@triton.jit
def _decode_fp32_bits(bits):
    """fp32 values from their IEEE bits by integer arithmetic (red team B's c07: no bitcast, no float load)."""
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    m = tl.where(e > 0, m | 0x800000, m)
    e = tl.where(e > 0, e, 1)
    v = m.to(tl.float32) * tl.exp2((e - 150).to(tl.float32))
    return tl.where(bits < 0, -v, v)


@triton.jit
def _dot_of_bits(a_ptr, b_ptr, c_ptr, CAST: tl.constexpr):
    r = tl.arange(0, 16)
    tile = r[:, None] * 16 + r[None, :]
    if CAST:  # fp32 pointers made int32 pointers inside the kernel
        a_ptr = a_ptr.to(tl.pointer_type(tl.int32))
        b_ptr = b_ptr.to(tl.pointer_type(tl.int32))
    c = tl.dot(_decode_fp32_bits(tl.load(a_ptr + tile)), _decode_fp32_bits(tl.load(b_ptr + tile)))  # TF32
    tl.store(c_ptr + tile, c)


@triton.jit
def _copy_bits(x_ptr, q_ptr):
    r = tl.arange(0, 256)
    tl.store(q_ptr + r, tl.load(x_ptr + r).to(tl.int32, bitcast=True))


def _launder(a: torch.Tensor, how: str):
    if how in ("host view", "view made before the trace"):
        return a.view(torch.int32)
    if how == "copy of a view":
        return a.view(torch.int32).clone()
    if how == "reinterpret":
        return triton.reinterpret(a, tl.int32)
    if how == "kernel-filled int32 buffer":
        q = torch.empty(a.shape, dtype=torch.int32, device=a.device)
        _copy_bits[(1,)](a, q)
        return q
    return a  # "pointer cast" inside the kernel


LAUNDERINGS = [
    "host view",
    "view made before the trace",
    "copy of a view",
    "reinterpret",
    "pointer cast",
    "kernel-filled int32 buffer",
]


@pytest.mark.parametrize("how", LAUNDERINGS)
def test_a_tf32_dot_of_fp32_data_laundered_through_int32_is_still_one(how):
    """Red team B c07a/b: fp32 bits handed to a kernel as int32 and decoded by integer arithmetic are fp32 data; the
    dot used to record them as "from int32", which no precision was needed for."""
    a, b = torch.randn(16, 16, device=DEVICE), torch.randn(16, 16, device=DEVICE)
    c = torch.empty(16, 16, device=DEVICE)
    early = (_launder(a, how), _launder(b, how)) if how == "view made before the trace" else None  # in __init__
    model = torch.nn.Module()  # the candidate, whose weights a and b are
    model.a, model.b = torch.nn.Parameter(a, requires_grad=False), torch.nn.Parameter(b, requires_grad=False)
    with AtenTrace() as trace, DotWatch(DEVICE, trace.held, [model]) as watch:
        _dot_of_bits[(1,)](*(early or (_launder(a, how), _launder(b, how))), c, CAST=how == "pointer cast")
    dots = [d for d in watch.observation([a, b], {})["dots"] if "precision" in d]
    assert [(d["a"], d["precision"], d.get("from")) for d in dots] == [("fp32", "tf32", "fp32")]
    reason = precision_reason([{"precision": watch.observation([a, b], trace.narrowings)}], ["float32"], "strict")
    assert "input_precision=tf32" in reason.message
    torch.testing.assert_close(
        c, a @ b, atol=0.1, rtol=0.01
    )  # the decoding is right: only the dot's precision is wrong


@triton.jit
def _dot_of_addresses(a_address, b_address, c_ptr):
    r = tl.arange(0, 16)
    tile = r[:, None] * 16 + r[None, :]
    a = tl.load(a_address.to(tl.pointer_type(tl.int32)) + tile)  # x.data_ptr() handed over as an integer
    b = tl.load(b_address.to(tl.pointer_type(tl.int32)) + tile)
    tl.store(c_ptr + tile, tl.dot(_decode_fp32_bits(a), _decode_fp32_bits(b)))


def test_a_raw_address_of_the_problem_s_data_reads_that_data():
    """The inputs handed over as integers (`a.data_ptr()`) and made int32 pointers in the kernel: the addresses lie in
    the inputs' fp32 storages, which DotWatch learns from the trial (`problem_data`)."""
    a, b = torch.randn(16, 16, device=DEVICE), torch.randn(16, 16, device=DEVICE)
    c = torch.empty(16, 16, device=DEVICE)
    with AtenTrace() as trace, DotWatch(DEVICE, trace.held, [a, b]) as watch:
        _dot_of_addresses[(1,)](a.data_ptr(), b.data_ptr(), c)
    dots = [d for d in watch.observation([a, b], {})["dots"] if "precision" in d]
    assert [(d["a"], d["precision"], d.get("from")) for d in dots] == [("fp32", "tf32", "fp32")]
    torch.testing.assert_close(c, a @ b, atol=0.1, rtol=0.01)


def test_integers_that_are_numbers_stay_integers():
    """A genuine int32 tensor (no float storage behind it) decoded the same way is integer data: no precision to keep."""
    a = torch.randint(0, 2**24, (16, 16), dtype=torch.int32, device=DEVICE)  # small numbers: tiny subnormals decoded
    c = torch.empty(16, 16, device=DEVICE)
    with AtenTrace() as trace, DotWatch(DEVICE, trace.held) as watch:
        _dot_of_bits[(1,)](a, a, c, CAST=False)
    dots = [d for d in watch.observation([], {})["dots"] if "precision" in d]
    assert [d.get("from") for d in dots] == ["int32"]


@triton.jit
def _fp64_rounded_by_bits(x_ptr, y_ptr, CAST: tl.constexpr):
    r = tl.arange(0, 16)
    if CAST:
        x_ptr = x_ptr.to(tl.pointer_type(tl.int64))
    bits = tl.load(x_ptr + r)
    e = (bits >> 52) & 0x7FF
    m = ((bits & 0xFFFFFFFFFFFFF) >> 29) + 0x800000  # the 24 leading significand bits: fp32's
    v = m.to(tl.float32) * tl.exp2((e - 1023 - 23).to(tl.float32))
    tl.store(y_ptr + r, tl.where(bits < 0, -v, v).to(tl.float64))


@pytest.mark.parametrize("cast", [False, True])
def test_fp64_data_rounded_to_fp32_by_integer_arithmetic_is_narrowed(cast):
    """Red team B c07c: an fp64 problem's data read as int64 (host view or pointer cast), rounded to fp32 by integer
    arithmetic and converted with .to(tl.float32): an int64->fp32 conversion of fp64 data."""
    x, y = torch.randn(16, dtype=torch.float64, device=DEVICE), torch.empty(16, dtype=torch.float64, device=DEVICE)
    with AtenTrace() as trace, DotWatch(DEVICE, trace.held) as watch:
        _fp64_rounded_by_bits[(1,)](x if cast else x.view(torch.int64), y, CAST=cast)
    torch.testing.assert_close(y, x.float().double(), atol=1e-6, rtol=1e-6)
    reason = precision_reason([{"precision": watch.observation([x], trace.narrowings)}], ["float64"], "strict")
    assert "int64->fp32 cast rounds this problem's fp64 data" in reason.message


@triton.jit
def _sign_bit_relu(x_ptr, y_ptr):
    r = tl.arange(0, 256)
    bits = tl.load(x_ptr + r)
    tl.store(y_ptr + r, tl.where(bits < 0, 0, bits))


def test_moving_the_bits_of_float_data_is_no_downgrade():
    """Red team B h11: a ReLU by the sign bit of int32 views of the fp32 input and output moves bits only."""
    x, y = torch.randn(256, device=DEVICE), torch.empty(256, device=DEVICE)
    with AtenTrace() as trace, DotWatch(DEVICE, trace.held) as watch:
        _sign_bit_relu[(1,)](x.view(torch.int32), y.view(torch.int32))
    assert torch.equal(y, x.clamp(min=0))
    assert precision_reason([{"precision": watch.observation([x], trace.narrowings)}], ["float32"], "strict") is None
