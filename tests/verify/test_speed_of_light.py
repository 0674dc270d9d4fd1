"""The speed of light and the faster-than-light floor (tritonrl/verify/speed_of_light.py), counted by hand.

Bytes and flops of every built-in problem at its own shapes; the floor of
structured inputs (a triangular matrix's zero half), inputs the output
ignores, and outputs without a derivative; the datasheet lookup; the
verdict's fields and the faster_than_light rejection from given timings.
"""

from types import SimpleNamespace

import pytest
import torch

from tritonrl.problems import load_problems
from tritonrl.verify.result import Layer, ReasonCode, Verdict
from tritonrl.verify.draws import build_reference, make_inputs
from tritonrl.verify.runtime import import_source
from tritonrl.verify.speed_of_light import (
    FLOOR_SLACK,
    UNKNOWN_GPU_MARGIN,
    GpuPeaks,
    Work,
    bound,
    faster_than_light,
    floor_bandwidth,
    light_reason,
    measure_peaks,
    measure_work,
    sol_fraction,
    sol_ms,
    table_peaks,
)
from tritonrl.verify.verifier import ReferenceRun, Verifier

F32 = 4  # bytes per float32 element


def _work(source: str, tmp_path) -> Work:
    problem = import_source(source, "problem", tmp_path)
    model = build_reference(problem, 1, "cpu")
    return measure_work(model, make_inputs(problem, 1, "cpu"), make_inputs(problem, 2, "cpu"))


# (input bytes, parameter/buffer bytes, output bytes, float32 flops) at each built-in problem's own shapes
BUILTIN = {
    "01_relu.py": (16 * 1024 * F32, 0, 16 * 1024 * F32, 0),
    "02_gelu.py": (16 * 1024 * F32, 0, 16 * 1024 * F32, 0),
    "03_silu.py": (16 * 1024 * F32, 0, 16 * 1024 * F32, 0),
    "04_add_bias_broadcast.py": ((16 * 1024 + 1024) * F32, 0, 16 * 1024 * F32, 0),
    "05_channel_scale.py": ((8 * 16 * 256 + 16) * F32, 0, 8 * 16 * 256 * F32, 0),
    "06_row_sum.py": (16 * 4096 * F32, 0, 16 * F32, 0),
    "07_row_mean.py": (16 * 4096 * F32, 0, 16 * F32, 0),
    "08_row_max.py": (16 * 4096 * F32, 0, 16 * F32, 0),
    "09_softmax.py": (16 * 4096 * F32, 0, 16 * 4096 * F32, 0),
    "10_log_softmax.py": (16 * 1024 * F32, 0, 16 * 1024 * F32, 0),
    "11_layer_norm.py": (16 * 256 * F32, 2 * 256 * F32, 16 * 256 * F32, 0),  # weight and bias
    "12_rms_norm.py": (16 * 256 * F32, 256 * F32, 16 * 256 * F32, 0),
    "13_matmul.py": ((128 * 64 + 64 * 96) * F32, 0, 128 * 96 * F32, 2 * 128 * 96 * 64),
    "14_batched_matmul.py": (4 * (64 * 48 + 48 * 80) * F32, 0, 4 * 64 * 80 * F32, 2 * 4 * 64 * 80 * 48),
    "15_linear_bias_relu.py": (64 * 128 * F32, (96 * 128 + 96) * F32, 64 * 96 * F32, 2 * 64 * 96 * 128),
    "16_cumsum.py": (16 * 1024 * F32, 0, 16 * 1024 * F32, 0),
    "17_max_pool1d.py": (8 * 16 * 128 * F32, 0, 8 * 16 * 63 * F32, 0),  # (128 - 4) // 2 + 1 = 63 windows
    "18_mse_loss.py": (2 * 16 * 1024 * F32, 0, F32, 0),  # a scalar
}
# Problems whose every input element has a derivative almost surely: the floor counts them all.
DENSE = {
    "02_gelu.py",
    "03_silu.py",
    "04_add_bias_broadcast.py",
    "05_channel_scale.py",
    "06_row_sum.py",
    "07_row_mean.py",
    "09_softmax.py",
    "10_log_softmax.py",
    "11_layer_norm.py",
    "12_rms_norm.py",
    "13_matmul.py",
    "14_batched_matmul.py",
    "15_linear_bias_relu.py",
    "16_cumsum.py",
    "18_mse_loss.py",
}


@pytest.fixture(scope="module")
def builtin_work(tmp_path_factory):
    directory = tmp_path_factory.mktemp("problems")
    return {p.name: _work(p.source, directory) for p in load_problems("builtin")}


def test_bytes_and_flops_of_every_builtin_problem(builtin_work):
    assert set(builtin_work) == set(BUILTIN)
    for name, (inputs, state, outputs, flops) in BUILTIN.items():
        work = builtin_work[name]
        assert (work.input_bytes, work.state_bytes, work.output_bytes) == (inputs, state, outputs), name
        assert work.flops == ({"float32": flops} if flops else {}), name
        assert work.moved_bytes == inputs + state + outputs


def test_the_floor_counts_every_input_element_with_a_derivative(builtin_work):
    for name in DENSE:  # distinct values: float32 draws from torch.rand repeat a few values by chance
        assert 0.995 * BUILTIN[name][0] <= builtin_work[name].fresh_bytes <= BUILTIN[name][0], name
    # relu: the negative side has no derivative, so one set's positive half counts. A weaker floor, never a
    # wrong one (docs/VERIFIER.md: what it cannot catch).
    relu = builtin_work["01_relu.py"]
    assert 0.4 * relu.input_bytes < relu.fresh_bytes < 0.6 * relu.input_bytes
    row_max = builtin_work["08_row_max.py"]  # only the maximum has a derivative: the known weak case
    assert 0 < row_max.fresh_bytes < row_max.input_bytes
    assert all(w.fresh_bytes <= w.input_bytes and w.dependence == "autograd" for w in builtin_work.values())


TRIANGULAR = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, A, B):
        return torch.tril(torch.matmul(A, B))


M = 64


def get_inputs():
    return [torch.tril(torch.rand(M, M)), torch.tril(torch.rand(M, M))]


def get_init_inputs():
    return []
"""


def test_a_triangular_problem_floor_counts_only_the_nonzero_halves(tmp_path):
    work = _work(TRIANGULAR, tmp_path)
    n = 64
    assert work.input_bytes == 2 * n * n * F32 and work.flops == {"float32": 2 * n**3}  # sol_ms: the dense work
    lower = n * (n + 1) // 2 * F32  # the floor: the lower halves with their diagonals (less chance repeats of rand)
    assert 0.995 * 2 * lower <= work.fresh_bytes <= 2 * lower
    assert 0.995 * lower <= work.output_floor_bytes <= lower


def _source(forward: str, inputs: str) -> str:
    return (
        f"import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def forward(self, *xs):\n"
        f"        return {forward}\n\n\ndef get_inputs():\n    return {inputs}\n\n\ndef get_init_inputs():\n    return []\n"
    )


def test_inputs_the_output_does_not_depend_on_count_nothing(tmp_path):
    size_one = _work(_source("torch.softmax(xs[0], dim=1)", "[torch.randn(32, 1)]"), tmp_path)
    assert size_one.fresh_bytes == 0  # constant 1: no correct kernel needs to read x
    sliced = _work(_source("xs[0][:, :8] * 2", "[torch.randn(16, 64)]"), tmp_path)
    assert sliced.fresh_bytes == 16 * 8 * F32
    ignored = _work(_source("xs[0] + 1", "[torch.randn(16, 64), torch.randn(1000)]"), tmp_path)
    assert ignored.fresh_bytes == 16 * 64 * F32


def test_the_floor_counts_only_what_a_gradient_proves_each_call_reads(tmp_path):
    """Red team: a union over sets, whole-input fallbacks and summed outputs over-counted honest answers."""
    # A data-dependent select reads one row of each pair per call: counted per set, not as the union of both.
    select = _work(
        _source(
            "torch.where(xs[0][:, None] > 0.5, xs[1], xs[2]).sum(1)",
            "[torch.rand(64), torch.randn(64, 32), torch.randn(64, 32)]",
        ),
        tmp_path,
    )
    assert select.fresh_bytes <= 64 * 32 * F32 + 64 * F32
    # No derivative (an argmax over a slice): no input is proven read, none counts.
    argmax = _work(_source("torch.argmax(xs[0][:, :8], dim=1)", "[torch.randn(16, 64)]"), tmp_path)
    assert argmax.dependence == "none" and argmax.fresh_bytes == 0
    # Integer inputs count nothing (an index tensor is read only where it is used); float ones still do.
    scaled = _work(_source("xs[0] * xs[1][:, :1]", "[torch.randn(16, 64), torch.randint(0, 9, (16, 64))]"), tmp_path)
    assert scaled.fresh_bytes == 16 * 64 * F32
    gather = _work(_source("xs[0][xs[1]]", "[torch.randn(50, 8), torch.randint(0, 50, (20,))]"), tmp_path)
    assert gather.dependence == "autograd" and gather.fresh_bytes <= 20 * 8 * F32  # at most the rows it gathers
    # Two equal outputs may be one tensor in an answer: the largest output counts, not their sum.
    twice = _work(_source("(xs[0] * 2, xs[0] * 2)", "[torch.randn(16, 64)]"), tmp_path)
    assert twice.output_floor_bytes == 16 * 64 * F32


def test_repeated_content_counts_once(tmp_path):
    """Second red team: structure every trial keeps (symmetry, repeats, a copy as a second input) is read once."""
    n = 64
    symmetric = _work(
        _source("xs[0] @ xs[1]", f"[(lambda b: b + b.T)(torch.randn({n}, {n})), torch.randn({n})]"), tmp_path
    )
    assert symmetric.fresh_bytes == (n * (n + 1) // 2 + n) * F32  # one triangle with the diagonal, and x
    repeated = _work(_source("xs[0] @ xs[1]", f"[torch.randn(1, {n}).repeat({n}, 1), torch.randn({n})]"), tmp_path)
    assert repeated.fresh_bytes == 2 * n * F32
    copy = _work(_source("xs[0] + xs[1]", f"(lambda x: [x, x.clone()])(torch.randn({n}, {n}))"), tmp_path)
    assert copy.fresh_bytes == n * n * F32
    broadcast = _work(_source("xs[0].sum(1, keepdim=True).repeat(1, 256)", f"[torch.randn({n}, 32)]"), tmp_path)
    assert broadcast.output_floor_bytes == n * F32  # an answer may return an expanded view of n sums


# -- peaks and the bound --------------------------------------------------------------------------


def test_the_datasheet_row_is_found_by_device_name():
    assert table_peaks("NVIDIA H200").bandwidth == 4.8e12
    assert table_peaks("NVIDIA H200").flops == {"fp32": 67e12, "tf32": 494.5e12, "bf16": 989.5e12, "fp16": 989.5e12}
    assert table_peaks("NVIDIA H100 80GB HBM3").bandwidth == 3.35e12
    assert table_peaks("NVIDIA H100 PCIe").bandwidth == 2.0e12
    assert table_peaks("NVIDIA H100 NVL").bandwidth == 3.9e12
    assert table_peaks("NVIDIA A100-SXM4-80GB").bandwidth == 2.039e12
    assert table_peaks("NVIDIA A100-SXM4-40GB").bandwidth == 1.555e12
    assert table_peaks("NVIDIA A100 80GB PCIe").bandwidth == 1.935e12
    assert table_peaks("NVIDIA B200").bandwidth == 8.0e12
    assert table_peaks("NVIDIA H200 NVL").flops["fp32"] == 60e12  # the more specific row
    assert table_peaks("NVIDIA H100").bandwidth == 3.9e12  # a family without a variant: its largest numbers
    assert table_peaks("NVIDIA GeForce RTX 4090") is None


MEASURED = GpuPeaks(4.2e12, {"fp32": 50e12, "tf32": 400e12, "bf16": 1000e12, "fp16": 800e12}, 60 << 20)


def test_the_floor_bandwidth_is_the_datasheet_unless_the_gpu_is_unknown_or_beats_it():
    assert floor_bandwidth(table_peaks("NVIDIA H200"), MEASURED) == 4.8e12  # never the measured 4.2 alone
    assert floor_bandwidth(None, MEASURED) == pytest.approx(4.2e12 * UNKNOWN_GPU_MARGIN)
    assert floor_bandwidth(table_peaks("NVIDIA A100-SXM4-40GB"), MEASURED) == pytest.approx(4.2e12 * UNKNOWN_GPU_MARGIN)


def test_sol_ms_takes_the_larger_peaks_and_the_precision_policys_class():
    matmul = Work(
        input_bytes=2 * 4096 * 4096 * F32, state_bytes=0, output_bytes=4096 * 4096 * F32, flops={"float32": 2 * 4096**3}
    )
    peaks = GpuPeaks(4.8e12, {"fp32": 67e12, "tf32": 494.5e12, "bf16": 1000e12, "fp16": 989.5e12}, 60 << 20)
    assert sol_ms(matmul, peaks, "strict") == pytest.approx(1e3 * 2 * 4096**3 / 67e12)  # IEEE fp32: CUDA cores
    assert sol_ms(matmul, peaks, "tf32") == pytest.approx(1e3 * 2 * 4096**3 / 494.5e12)
    half = Work(input_bytes=0, state_bytes=0, output_bytes=0, flops={"bfloat16": 10**15})
    assert sol_ms(half, peaks, "strict") == pytest.approx(1e3)
    assert bound(half, "NVIDIA H200", MEASURED, "strict").sol_ms == pytest.approx(
        1e3
    )  # measured 1000 beats the table's 989.5
    assert bound(half, "NVIDIA H200", MEASURED, "tf32").sol_ms == pytest.approx(1e3)  # the policy concerns fp32 only
    relu = Work(input_bytes=2**30, state_bytes=0, output_bytes=2**30)
    limits = bound(relu, "NVIDIA H200", MEASURED, "strict")
    assert limits.sol_ms == pytest.approx(1e3 * 2**31 / 4.8e12)
    assert limits.floor_ms == 0.0  # fresh_bytes 0: nothing was found the outputs depend on


def test_the_floor_counts_fresh_inputs_and_the_output_beyond_l2():
    work = Work(input_bytes=0, state_bytes=0, output_bytes=0, fresh_bytes=100 << 20, output_floor_bytes=80 << 20)
    limits = bound(work, "NVIDIA H200", MEASURED, "strict")  # L2: the measured 60 MiB (the table says 50)
    assert limits.floor_bytes == (100 << 20) + (20 << 20)  # only what of the output L2 cannot hold must reach HBM
    assert limits.floor_ms == pytest.approx(1e3 * (120 << 20) / 4.8e12)
    assert limits.floor_bandwidth == 4.8e12


def test_sol_fraction_and_faster_than_light_from_given_timings():
    assert sol_fraction(0.5, 2.0) == 0.25
    assert sol_fraction(0.5, 0.0) is None
    assert not faster_than_light(1.0, 1.0) and not faster_than_light(FLOOR_SLACK * 1.0, 1.0)
    assert faster_than_light(0.89, 1.0) and faster_than_light(0.01, 1.0)
    limits = SimpleNamespace(sol_ms=1.2, floor_ms=1.0, floor_bytes=4 << 30, floor_bandwidth=4.8e12)
    assert light_reason(0.95, limits) is None
    reason = light_reason(0.1, limits)
    assert reason.code is ReasonCode.FASTER_THAN_LIGHT and reason.code.layer is Layer.BEHAVIOUR
    assert "4096.0 MiB" in reason.message and "4.80 TB/s" in reason.message and "inside the call" in reason.message


def _timed(candidate_ms: float, floor_ms: float) -> Verdict:
    """A verdict judged by the verifier's timing step for a candidate that matched the reference."""
    reference = ReferenceRun("", {}, {}, 0, baseline={"median_ms": 4.0})
    reference.bound = SimpleNamespace(sol_ms=1.0, floor_ms=floor_ms, floor_bytes=1 << 30, floor_bandwidth=4.8e12)
    verdict = Verdict(ran=True, matches_reference=True, device="cuda")
    timing = {"median_ms": candidate_ms, "cv": 0.01, "triton_time_share": 1.0, "timed_output_error": None}
    Verifier._judge_timing(SimpleNamespace(), reference, timing, [], verdict)
    return verdict


def test_a_verdict_carries_the_speed_of_light_and_is_rejected_below_the_floor():
    honest = _timed(candidate_ms=2.0, floor_ms=0.5)
    assert (honest.sol_ms, honest.sol_fraction, honest.sol_floor_ms, honest.speedup) == (1.0, 0.5, 0.5, 2.0)
    assert honest.correct
    cheat = _timed(candidate_ms=0.05, floor_ms=0.5)
    assert cheat.codes == ["faster_than_light"] and not cheat.valid and cheat.speedup is None
    assert cheat.sol_fraction == pytest.approx(20.0)  # reported, as every timed verdict's is
    assert Verdict().sol_fraction is None  # CPU: nothing timed


@pytest.mark.gpu
def test_measured_peaks_are_plausible_and_below_the_datasheet():
    measured = measure_peaks("cuda")
    table = table_peaks(torch.cuda.get_device_name())
    assert measured.l2_bytes > 0 and measured.bandwidth > 1e11
    if table is not None:
        assert measured.bandwidth <= table.bandwidth
        assert measured.flops["fp32"] <= 1.05 * table.flops["fp32"]
