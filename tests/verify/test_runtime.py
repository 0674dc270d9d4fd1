"""The correctness runner tells right from wrong (the full anti-hack verifier builds on it)."""

import pytest
import torch
import triton
import triton.language as tl

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.kernel_writes import KernelWrites
from tritonrl.verify.runtime import (
    AtenTrace,
    LaunchCounter,
    check_correctness,
    compare_outputs,
    plain_outputs,
    reference_only_glue,
    tolerance,
)

RELU = next(p for p in load_builtin() if p.name == "01_relu.py")
RELU_CODE = parse_response(RELU.reference_response).code


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("tl.maximum(x, 0.0)", "tl.maximum(x, 0.1)"), "exceeds the tolerance"),
        (("torch.empty_like(x)", "torch.empty(x.shape[0], x.shape[1] + 1)"), "shape"),
        (("torch.empty_like(x)", "torch.empty_like(x, dtype=torch.float64)"), "dtype"),
        (("tl.maximum(x, 0.0)", "x / 0.0"), "NaN/inf"),
    ],
)
def test_wrong_candidates_are_rejected_with_the_reason(edit, message):
    code = RELU_CODE.replace(*edit)
    assert code != RELU_CODE
    result = check_correctness(RELU.source, code)
    assert not result.correct
    assert message in result.message


def test_reference_passes_with_zero_error():
    result = check_correctness(RELU.source, RELU_CODE, trials=3)
    assert result.correct and result.trials == 3 and result.max_abs_error == 0.0


def test_tolerance_scales_with_the_output_so_tiny_outputs_are_checked_too():
    expected = [torch.full((1000,), 2.5e-6)]
    assert compare_outputs(expected, [expected[0] * 1.0005])[0] is None
    code, _, message = compare_outputs(expected, [torch.zeros(1000)])  # fixed atol=1e-3 would accept this
    assert code is ReasonCode.WRONG_RESULT and "output RMS" in message


def test_host_reads_of_tensor_data_are_recorded_apart_from_compute():
    x = torch.randn(8)
    eps = 1e-5
    trace = AtenTrace()
    with trace:
        float(x[0]), int(x[1]), bool(x[2] > 0), x.sum().item()
        float(eps), int(3.0)  # Python numbers: nothing dispatched
    assert trace.host_reads == {"_local_scalar_dense": 4}
    assert "_local_scalar_dense" not in trace.ops


def test_elements_handed_to_python_objects_are_host_reads_and_tables_of_sizes_are_not():
    x = torch.randn(200)
    with (trace := AtenTrace()):
        torch.tensor([i * 2 for i in range(511)])  # an index table from sizes: Python data, not tensor data
        a, b, c = x[:3]  # a few elements: host glue
    assert trace.host_reads == {}
    with (trace := AtenTrace()):
        [x[i : i + 1].contiguous() for i in range(100)]  # single elements handed on as tensors (to launches)
    assert trace.host_reads == {}
    with (trace := AtenTrace()):
        torch.cat([torch.tensor(list(chunk), dtype=torch.float16) for chunk in x.split(50)])  # in chunks too
    assert trace.host_reads == {"element views[rebuilt from Python objects]": 200}
    with (trace := AtenTrace()):
        torch.tensor(x.split(1), dtype=torch.float16), torch.tensor([x[i] for i in range(100)])
    assert trace.host_reads == {"element views[rebuilt from Python objects]": 300}


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=offsets < n), mask=offsets < n)


def test_what_candidate_python_computes_inside_a_launch_is_traced_and_the_launch_glue_is_not():
    x = torch.randn(300)
    out = torch.empty_like(x)
    trace, counter = AtenTrace(), LaunchCounter()
    with torch.no_grad(), counter, trace:
        copy_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel(), BLOCK=64)
    assert counter.launches == 1 and trace.compute_ops() == {} and trace.host_reads == {}
    assert torch.equal(out, x)

    def cheating_grid(meta):
        x.exp()  # torch compute that Triton runs during the launch
        float(x[0])
        return (triton.cdiv(x.numel(), meta["BLOCK"]),)

    trace = AtenTrace()
    with torch.no_grad(), LaunchCounter(), trace:
        copy_kernel[cheating_grid](x, out, x.numel(), BLOCK=64)
    assert trace.compute_ops() == {"exp": 1} and trace.host_reads == {"_local_scalar_dense": 1}


def test_plain_outputs_accept_exact_tensors_and_containers_without_running_candidate_code():
    a, b = torch.ones(2), torch.zeros(3)
    assert [t.shape for t in plain_outputs(a)[0]] == [(2,)]
    tensors, foreign = plain_outputs((a, b))
    assert foreign == [] and [t.shape for t in tensors] == [(2,), (3,)]
    assert plain_outputs([a])[1] == []

    class Lazy(list):
        def __iter__(self):
            raise AssertionError("the harness iterated a list subclass")

    class Sub(torch.Tensor):
        pass

    class ArrayLike:
        def __array__(self, dtype=None):
            raise AssertionError("the harness converted an __array__ object")

    assert plain_outputs(Lazy([a])) == ([], ["Lazy"])
    assert plain_outputs(a.as_subclass(Sub)) == ([], ["Sub"])
    assert plain_outputs((a, ArrayLike())) == ([], ["ArrayLike"])
    assert plain_outputs(a.to_sparse())[1] == ["Tensor"]
    assert plain_outputs(3.0) == ([], ["float"])


def test_plain_outputs_ignore_instance_attributes_that_shadow_tensor_methods():
    out = torch.zeros(4)
    out.detach = lambda: torch.ones(4)
    (copy,), _ = plain_outputs(out)
    assert torch.equal(copy, torch.zeros(4)) and copy.data_ptr() == out.data_ptr()


def test_tf32_policy_widens_only_the_fp32_tolerance():
    expected = [torch.ones(64) * 8]
    tf32_like = [expected[0] * (1 + 4e-3)]  # TF32's error at K=64: ~0.5% of the output's RMS
    assert compare_outputs(expected, tf32_like)[0] is ReasonCode.WRONG_RESULT
    assert compare_outputs(expected, tf32_like, precision="tf32")[0] is None
    half = [torch.ones(64, dtype=torch.float16)]
    assert tolerance(torch.float16, "tf32") == tolerance(torch.float16)
    assert compare_outputs(half, [half[0] * 1.05], precision="tf32")[0] is ReasonCode.WRONG_RESULT


def test_glue_that_moves_data_is_told_from_allocation_views_and_constants():
    x = torch.randn(6, 4)
    with (trace := AtenTrace()):
        torch.empty(3), torch.zeros(2).fill_(1.0), x.t(), x.view(-1), x.unsqueeze(0), x.contiguous()
    assert trace.data_moves == {}
    with (trace := AtenTrace()):
        x.t().contiguous(), x.clone(), x.half(), torch.cat([x, x]), torch.stack([x, x])
        torch.empty(2).fill_(x[0, 0]), torch.empty(6, 4).copy_(x)
    assert trace.data_moves == {"clone": 2, "_to_copy": 1, "cat": 1, "stack": 1, "fill_": 1, "copy_": 1}
    assert trace.compute_ops() == {}
    assert reference_only_glue({"t": 1, "clone": 1}) and reference_only_glue({"_to_copy": 1})
    assert not reference_only_glue({"trunc": 1}) and not reference_only_glue({"_to_copy[float to integer]": 1})


def test_a_host_cast_of_floats_to_integers_is_computation():
    x = torch.randn(8) * 10
    with (trace := AtenTrace()):
        x.to(torch.int32).to(x.dtype)  # torch.trunc
        torch.empty(8, dtype=torch.int64).copy_(x)
        torch.arange(4).to(torch.int32), x.double(), torch.arange(4).float()  # integers and floats widened or kept
    assert trace.compute_ops() == {"_to_copy[float to integer]": 1, "copy_[float to integer]": 1}


def test_the_launch_counter_knows_which_storages_a_launch_was_handed():
    x = torch.randn(300)
    out, unused, scratch = torch.empty(400), torch.empty(300), torch.empty(300)
    with LaunchCounter() as counter:
        copy_kernel[(5,)](x, out[100:], 300, BLOCK=64)
        copy_kernel[(5,)](x, scratch, 300, BLOCK=64)
    del scratch
    fresh = torch.empty(300)  # may take the freed scratch's memory: not the same storage
    assert counter.handed(out) and counter.handed(out[:10].view(2, 5)) and counter.handed(x)
    assert not counter.handed(unused) and not counter.handed(fresh)


@triton.jit
def add_one_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(x_ptr + offsets, 1.0, mask=offsets < n)


def _made_by_kernels(x):
    out = torch.empty_like(x)
    copy_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)  # masked: covers every element
    return out


def _view_of_a_larger_buffer(x):
    buffer = torch.empty(x.numel() + 100)
    copy_kernel[(triton.cdiv(x.numel(), 64),)](x, buffer, x.numel(), BLOCK=64)
    return buffer[: x.numel()].view(30, 10).t()


def _halves_by_two_kernels(x):
    out = torch.empty_like(x)
    copy_kernel[(3,)](x, out, 150, BLOCK=64)
    copy_kernel[(3,)](x[150:], out[150:], 150, BLOCK=64)
    return out


def _in_place_kernel_on_a_clone(x):
    out = x.clone()
    add_one_kernel[(5,)](out, x.numel(), BLOCK=64)
    return out


def _scalar_by_an_atomic(x):
    out = torch.zeros(())
    add_one_kernel[(1,)](out, 1, BLOCK=2)
    return out


def _zeros_written_in_part(x):
    out = torch.zeros_like(x)  # a triangular matmul's zero half: values no tensor held
    copy_kernel[(1,)](x, out, 64, BLOCK=64)
    return out


def _fp64_accumulator_rounded_on_the_host(x):
    wide = torch.empty(x.shape, dtype=torch.float64)
    copy_kernel[(5,)](x, wide, x.numel(), BLOCK=64)
    return wide.float()


def _kernel_results_moved_by_glue(x):
    a = _made_by_kernels(x)
    return (
        torch.cat([a, a.view(30, 10).t().contiguous().view(-1)]),
        torch.stack([a, a]),
        torch.empty(30, 10).copy_(a.view(30, 10)),
    )


def _decoy_block_on_a_copy_of_the_input(x):
    out = x.clone()
    copy_kernel[(1,)](out, out, 64, BLOCK=64)
    return out


def _input_copied_over_the_kernels_output(x):
    out = _made_by_kernels(x)
    out.copy_(x)
    return out


def _empty_after_a_freed_scratch(x):
    _made_by_kernels(x)
    return torch.empty_like(x)


def _second_output_never_written(x):
    return _made_by_kernels(x), torch.empty_like(x)


def _kernel_result_and_the_input_concatenated(x):
    return torch.cat([_made_by_kernels(x), x])


@pytest.mark.parametrize(
    ("call", "cpu", "gpu"),
    [
        (_made_by_kernels, [], []),
        (_view_of_a_larger_buffer, [], []),
        (_halves_by_two_kernels, [], []),
        (_in_place_kernel_on_a_clone, [], []),
        (_scalar_by_an_atomic, [], []),
        (_zeros_written_in_part, [], []),
        (_fp64_accumulator_rounded_on_the_host, [], []),
        (_kernel_results_moved_by_glue, [], []),
        (_decoy_block_on_a_copy_of_the_input, [(0, 236, 300)], []),  # a GPU sees only that the output was handed
        (_input_copied_over_the_kernels_output, [(0, 300, 300)], []),
        (_empty_after_a_freed_scratch, [(0, 300, 300)], [(0, 300, 300)]),
        (_second_output_never_written, [(1, 300, 300)], [(1, 300, 300)]),
        (_kernel_result_and_the_input_concatenated, [(0, 300, 600)], [(0, 600, 600)]),
    ],
)
def test_output_elements_no_kernel_made_are_found(call, cpu, gpu):
    """CPU follows the interpreter's stores byte by byte; the GPU rule (run here on CPU tensors) whole storages."""
    for device, expected in (("cpu", cpu), ("cuda", gpu)):
        x = torch.randn(300)
        counter = LaunchCounter()
        writes = KernelWrites(device, counter, [x])
        with torch.no_grad(), counter, writes:
            outputs = call(x)
        outputs = list(outputs) if isinstance(outputs, tuple) else [outputs]
        found = [(u["output"], u["unwritten"], u["elements"]) for u in writes.unwritten_outputs(outputs)]
        assert found == expected, device


@pytest.mark.parametrize("call", [_kernel_result_and_the_input_concatenated, _input_copied_over_the_kernels_output])
def test_inputs_copied_into_an_output_are_made_where_the_reference_computes(call):
    """inputs_made: the input's values are the problem's own (a concatenation); only glue-only problems refuse them."""
    for device in ("cpu", "cuda"):
        x = torch.randn(300)
        counter = LaunchCounter()
        writes = KernelWrites(device, counter, [x], inputs_made=True)
        with torch.no_grad(), counter, writes:
            outputs = call(x)
        assert writes.unwritten_outputs(list(outputs) if isinstance(outputs, tuple) else [outputs]) == [], device
