"""The correctness runner tells right from wrong (the full anti-hack verifier builds on it)."""

import pytest
import torch
import triton
import triton.language as tl

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.runtime import (
    AtenTrace,
    LaunchCounter,
    build_candidate,
    build_reference,
    check_correctness,
    compare_outputs,
    plain_outputs,
    split_init_inputs,
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


def test_kernelbook_args_kwargs_form_of_init_inputs():
    assert split_init_inputs([[], {}]) == ([], {})
    assert split_init_inputs([[3], {"eps": 1e-5}]) == ([3], {"eps": 1e-5})
    assert split_init_inputs([64, 3]) == ([64, 3], {})


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
        [x[i:i + 1].contiguous() for i in range(100)]  # single elements handed on as tensors (to launches)
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


def test_constant_initialised_weights_are_varied_and_reach_the_candidate_under_its_own_names():
    class Problem:
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.ln = torch.nn.LayerNorm(8)
                self.lin = torch.nn.Linear(8, 8)

        @staticmethod
        def get_init_inputs():
            return []

    class Solution:
        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.gamma = torch.nn.Parameter(torch.ones(8))  # the answer's own names
                self.beta = torch.nn.Parameter(torch.zeros(8))
                self.lin = torch.nn.Linear(8, 8)

    reference = build_reference(Problem, 5, "cpu")
    assert not torch.equal(reference.ln.weight, torch.ones(8)) and not torch.equal(reference.ln.bias, torch.zeros(8))
    assert bool((reference.ln.weight > 0).all())
    assert torch.equal(build_reference(Problem, 5, "cpu").ln.weight, reference.ln.weight)  # seeded
    candidate = build_candidate(Problem, Solution, reference, 5, "cpu")
    assert torch.equal(candidate.gamma, reference.ln.weight) and torch.equal(candidate.beta, reference.ln.bias)
    assert torch.equal(candidate.lin.weight, reference.lin.weight)


def _problem_with(model_class) -> type:
    return type("Problem", (), {"Model": model_class, "get_init_inputs": staticmethod(lambda: [])})


def _solution_with(model_class) -> type:
    return type("Solution", (), {"ModelNew": model_class})


def test_weights_follow_how_the_answer_built_them_not_its_declaration_order():
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = torch.nn.LayerNorm(8)
            self.lin = torch.nn.Linear(8, 8)  # square: the transposed copy has the same shape

    class ModelNew(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.shift = torch.nn.Parameter(torch.zeros(8))  # bias first, under names of its own
            self.scale = torch.nn.Parameter(torch.ones(8))
            lin = torch.nn.Linear(8, 8)
            self.w_t = torch.nn.Parameter(lin.weight.detach().t().contiguous())  # stored as (in, out)
            self.b = torch.nn.Parameter(lin.bias.detach().clone())

    problem = _problem_with(Model)
    reference = build_reference(problem, 3, "cpu")
    candidate = build_candidate(problem, _solution_with(ModelNew), reference, 3, "cpu")
    assert torch.equal(candidate.scale, reference.ln.weight) and torch.equal(candidate.shift, reference.ln.bias)
    assert torch.equal(candidate.w_t, reference.lin.weight.t()) and torch.equal(candidate.b, reference.lin.bias)
