import pytest

from tritonrl.problems.shapes import ShapeError, batch_sites, input_dimension_sites, shape_constants, with_shapes

SOURCE = """import torch
N = 2048 * 2  # matrix side
batch_size = 16
scale = 0.5
name = "x"
dims = (1, 2)

def get_inputs():
    return [torch.rand(batch_size, N)]
"""


def test_reads_integer_constants_including_arithmetic():
    assert shape_constants(SOURCE) == {"N": 4096, "batch_size": 16, "dims:0": 1, "dims:1": 2}


def test_rewrite_changes_only_the_values_and_keeps_comments():
    out = with_shapes(SOURCE, {"N": 96, "batch_size": 3})
    assert "N = 96  # matrix side" in out
    assert "batch_size = 3\n" in out
    assert shape_constants(out) == {"N": 96, "batch_size": 3, "dims:0": 1, "dims:1": 2}
    assert out.replace("96", "2048 * 2").replace("= 3\n", "= 16\n") == SOURCE


def test_unknown_constant_is_rejected_with_the_known_ones():
    with pytest.raises(ShapeError, match=r"\['M'\] are not defined.*\['N', 'batch_size', 'dims:0', 'dims:1'\]"):
        with_shapes(SOURCE, {"M": 3})


TUPLES = """import torch
input_shape = (8192 * 2,)  # KernelBench's reductions: torch.rand(batch_size, *input_shape)
kernel_size = [3, (5), num]
depth, height, width = 16, 32, 32
a, b = c = 1, 2

def get_inputs():
    return [torch.rand(num, *input_shape), torch.rand(depth, height, width)]
"""


def test_tuple_elements_and_unpacked_names_are_sites_rewritten_in_place():
    sites = {"input_shape:0": 16384, "kernel_size:0": 3, "kernel_size:1": 5, "depth": 16, "height": 32, "width": 32}
    assert shape_constants(TUPLES) == sites  # `a, b = c = ...` has two targets: not a constant
    out = with_shapes(TUPLES, {"input_shape:0": 6, "kernel_size:1": 7, "height": 9})
    assert "input_shape = (6,)  # KernelBench" in out and "kernel_size = [3, (7), num]" in out
    assert "depth, height, width = 16, 9, 32\n" in out
    back = with_shapes(out, {"input_shape:0": 16384, "kernel_size:1": 5, "height": 32})
    assert back.replace("16384", "8192 * 2") == TUPLES


def test_the_batch_is_the_first_dimension_of_the_first_tensor_get_inputs_makes():
    assert batch_sites(SOURCE) == {"batch_size"}
    assert batch_sites(VARIADIC) == {"get_inputs:0"}  # a literal: torch.randn(16, 64)
    assert batch_sites(LOCALS) == {"get_inputs:rows"}  # through a local
    assert batch_sites(TUPLES) == set()  # `num` is no site


def test_input_dimension_sites_are_the_constants_that_size_get_inputs_tensors():
    assert input_dimension_sites(TUPLES) == {"input_shape:0", "depth", "height", "width"}  # `num` is no constant
    assert input_dimension_sites(VARIADIC) == {"batch"}
    named = (
        "import torch\nC = 8\nshape = (C, 4)\nn = 3\ndef get_inputs():\n    return [torch.randint(0, n, size=shape)]"
    )
    assert input_dimension_sites(named) == {"C", "shape:1"}  # through a tuple's elements; randint's high is no size


def test_multiline_value_is_replaced_whole():
    src = "size = (\n    64 *\n    2\n)\nother = 1\n"
    assert shape_constants(with_shapes(src, {"size": 5})) == {"size": 5, "other": 1}


# --- get_inputs size literals -------------------------------------------------

import json  # noqa: E402

from tritonrl.problems.shapes import shape_sites  # noqa: E402

from tests.support.paths import CANDIDATE_PROBLEMS, FIXTURES  # noqa: E402


def _kernelbook_sources() -> list[str]:
    lines = (FIXTURES / "kernelbook_sample.jsonl").read_text().splitlines()
    return [json.loads(line)["python_code"] for line in lines if line.strip()]


def _kernelbook_4x4() -> str:
    return next(s for s in _kernelbook_sources() if "torch.rand([4, 4, 4, 4])" in s)


def test_kernelbook_list_size_gives_one_site_per_literal():
    source = _kernelbook_4x4()
    assert shape_constants(source) == {}
    assert shape_sites(source) == {f"get_inputs:{k}": 4 for k in range(4)}
    for source in _kernelbook_sources():  # every fixture row sizes its input with one 4-d list literal
        assert list(shape_sites(source)) == [f"get_inputs:{k}" for k in range(4)]


def test_kernelbook_literal_is_rewritten_in_place():
    source = _kernelbook_4x4()
    out = with_shapes(source, {"get_inputs:0": 16, "get_inputs:2": 7})
    assert "torch.rand([16, 4, 7, 4])" in out
    assert out.replace("torch.rand([16, 4, 7, 4])", "torch.rand([4, 4, 4, 4])") == source
    assert shape_sites(out) == {"get_inputs:0": 16, "get_inputs:1": 4, "get_inputs:2": 7, "get_inputs:3": 4}


VARIADIC = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(64, 32)  # constructor literals are not sites

    def forward(self, x, y):
        return self.fc(x).sum(dim=1) + y

batch = 16

def get_inputs():
    x = torch.randn(16, 64)  # two sites
    y = torch.randn(batch, 32, dtype=torch.float32, device="cpu")
    return [x, y]

def get_init_inputs():
    return [torch.rand(5, 5).numel(), 64]
"""


def test_positional_size_literals_are_sites_in_source_order():
    # the constructor's literal 64 is a site too; Model(n) names only its first position
    sites = {"batch": 16, "get_inputs:0": 16, "get_inputs:1": 64, "get_inputs:2": 32, "get_init_inputs:1": 64}
    assert shape_sites(VARIADIC) == sites
    assert shape_constants(VARIADIC) == {"batch": 16}  # unchanged contract


def test_literal_and_constant_rewritten_together_rest_byte_identical():
    out = with_shapes(VARIADIC, {"get_inputs:0": 9, "get_inputs:1": 129, "batch": 3, "get_inputs:2": 31})
    assert "x = torch.randn(9, 129)  # two sites\n" in out
    assert 'y = torch.randn(batch, 31, dtype=torch.float32, device="cpu")' in out
    assert "batch = 3\n" in out
    back = with_shapes(out, {"get_inputs:0": 16, "get_inputs:1": 64, "batch": 16, "get_inputs:2": 32})
    assert back == VARIADIC


def test_identity_rewrite_is_byte_identical():
    for source in [VARIADIC, *_kernelbook_sources()]:  # (SOURCE's `2048 * 2` would fold to 4096)
        assert with_shapes(source, shape_sites(source)) == source


def test_randint_low_and_high_are_not_sites():
    src = """import torch
def get_inputs():
    a = torch.randint(0, 10, (8, 32))
    b = torch.randint(100, (12,))
    c = torch.randint(3, 50, size=[20, 2])
    d = torch.randint(0, 1000, (n,))
    return [a, b, c, d]
"""
    assert list(shape_sites(src).values()) == [8, 32, 12, 20, 2]
    out = with_shapes(src, {"get_inputs:1": 33, "get_inputs:2": 11})
    assert "torch.randint(0, 10, (8, 33))" in out and "torch.randint(100, (11,))" in out


def test_non_size_arguments_and_other_functions_are_not_sites():
    src = """import torch
import torch as th
from torch import zeros as z

def helper():
    return torch.rand(99)

def get_inputs():
    a = torch.full((24, 40), 17)            # fill value 17 is not a size
    b = torch.ones(size=(12, 3), dtype=torch.int64).sum(dim=1)
    c = th.empty(48).uniform_(0, 10)
    d = z([10, 11])
    e = torch.rand(2 * 64)                  # an expression, not a literal
    f = torch.tensor([100, 200])            # data, not a size
    g = torch.rand_like(a)
    h = torch.randn(16, 64)[:, 10:20].view(16, 10)  # indices and views are not sizes
    return [a, b, c, d, e, f, g, h]

def get_init_inputs():
    return [torch.rand(5, 5), 64]
"""
    assert list(shape_sites(src).values()) == [24, 40, 12, 3, 48, 10, 11, 16, 64, 64]  # the last: get_init_inputs'
    assert list(shape_sites(src))[-1] == "get_init_inputs:1"  # no Model to name the position; the rand(5, 5) is none
    out = with_shapes(src, {"get_inputs:4": 50, "get_inputs:5": 13, "get_inputs:8": 65})
    assert "th.empty(50).uniform_(0, 10)" in out and "z([13, 11])" in out and "torch.randn(16, 65)[:, 10:20]" in out


def test_several_literals_on_one_line_and_multiline_calls():
    src = "import torch\ndef get_inputs():\n    return [torch.rand(\n        10, 20), torch.rand(30, 40)]\n"
    out = with_shapes(src, {"get_inputs:0": 1, "get_inputs:1": 22222, "get_inputs:2": 3, "get_inputs:3": 44444})
    assert out == "import torch\ndef get_inputs():\n    return [torch.rand(\n        1, 22222), torch.rand(3, 44444)]\n"


def test_unknown_literal_site_is_rejected_with_the_known_ones():
    known = r"\['batch', 'get_inputs:0', 'get_inputs:1', 'get_inputs:2', 'get_init_inputs:1'\]"
    with pytest.raises(ShapeError, match=r"\['get_inputs:7'\] are not defined.*" + known):
        with_shapes(VARIADIC, {"get_inputs:7": 3})
    with pytest.raises(ShapeError, match=r"\['N'\] are not defined"):
        with_shapes(_kernelbook_4x4(), {"N": 3})


# --- get_inputs locals and get_init_inputs arguments (followed by dataflow) -----

from tritonrl.problems.shapes import site_spans  # noqa: E402


def _built(source: str):
    """(input shapes, constructor arguments) of a problem source, run as written."""
    namespace: dict = {}
    exec(compile(source, "<problem>", "exec"), namespace)  # noqa: S102 - test sources only
    return [tuple(t.shape) for t in namespace["get_inputs"]()], namespace["get_init_inputs"]()


LOCALS = """import torch
batch = 4
input_shape = (8, 3)

def get_inputs():
    rows, cols = 16, 4096  # sizes bound to locals
    n = 64
    side = n * 2  # a chain: n is the site, the factor 2 no size
    shape = (rows, 5)
    a, b = input_shape  # the module's tuple: its own sites
    high = 1000  # randint's high: no size
    return [torch.randn(rows, cols), torch.rand(side, side), torch.zeros(size=(shape[0], cols)),
            torch.randn(batch, *shape), torch.randint(0, high, (a, b))]

def get_init_inputs():
    return []
"""


def test_get_inputs_locals_that_reach_a_size_are_sites_named_by_the_local():
    assert shape_sites(LOCALS) == {
        "batch": 4,
        "input_shape:0": 8,
        "input_shape:1": 3,
        "get_inputs:rows": 16,
        "get_inputs:cols": 4096,
        "get_inputs:n": 64,
        "get_inputs:shape:1": 5,
    }
    assert input_dimension_sites(LOCALS) == {"batch", "input_shape:0", "input_shape:1"}
    out = with_shapes(LOCALS, {"get_inputs:rows": 5, "get_inputs:cols": 33, "get_inputs:n": 7, "get_inputs:shape:1": 2})
    assert "    rows, cols = 5, 33  # sizes bound to locals\n" in out and "    n = 7\n" in out
    assert "side = n * 2" in out and "shape = (rows, 2)" in out
    assert _built(out)[0] == [(5, 33), (14, 14), (5, 33), (4, 5, 2), (8, 3)]
    assert with_shapes(out, shape_sites(LOCALS)) == LOCALS


def test_softmax_sized_by_get_inputs_locals_moves():  # red team round 5: no site, no shape trial, 16 x 4096 accepted
    src = (CANDIDATE_PROBLEMS / "rt5_softmax_local_size.py").read_text()
    assert shape_sites(src) == {"get_inputs:rows": 16, "get_inputs:cols": 4096}
    assert _built(with_shapes(src, {"get_inputs:rows": 21, "get_inputs:cols": 5121}))[0] == [(21, 5121)]


def test_a_name_without_a_single_value_is_not_followed():
    src = """import torch
N = 1024
height = width = 2048
height, width = 32, 32  # the module's last binding is what get_inputs reads

def get_inputs(k=3, q=5, *shape):
    m = 16
    m = 24  # bound twice: which one reaches the size depends on the path
    for i in range(2):
        j = 7 + i
    N = 12  # a local shadows the module's N
    q = q + 1
    return [torch.rand(m, j, k, q, N, *shape), torch.rand(height, width)]
"""
    # a default is the parameter's value (get_inputs() is called without arguments), unless the body rebinds it
    assert shape_sites(src) == {"N": 1024, "height": 32, "width": 32, "get_inputs:k": 3, "get_inputs:N": 12}
    assert input_dimension_sites(src) == {"height", "width"}  # not the module's N: get_inputs reads its own


INIT_LITERAL = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, features, kernel_size=(3, 3), *rest):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x):
        return self.ln(x)

def get_inputs():
    return [torch.randn(16, 256)]

def get_init_inputs():
    hidden = 8
    return [256, (3, 5), hidden * 4, True, 0.5, torch.ones(2).numel()]
"""


def test_get_init_inputs_integers_are_sites_named_by_the_parameter_they_bind():
    sites = shape_sites(INIT_LITERAL)
    assert sites == {
        "get_inputs:0": 16,
        "get_inputs:1": 256,
        "get_init_inputs:features": 256,
        "get_init_inputs:kernel_size:0": 3,
        "get_init_inputs:kernel_size:1": 5,
        "get_init_inputs:hidden": 8,
    }  # `*rest` names no position; a bool, a float, a call: no sites
    out = with_shapes(
        INIT_LITERAL,
        {
            "get_inputs:1": 321,
            "get_init_inputs:features": 321,
            "get_init_inputs:kernel_size:1": 7,
            "get_init_inputs:hidden": 2,
        },
    )
    assert "return [321, (3, 7), hidden * 4, True, 0.5, torch.ones(2).numel()]" in out and "hidden = 2\n" in out
    inputs, arguments = _built(out)
    assert inputs == [(16, 321)] and arguments == [321, (3, 7), 8, True, 0.5, 2]
    line, start, end_line, end = site_spans(INIT_LITERAL)["get_init_inputs:features"]
    assert line == end_line and INIT_LITERAL.splitlines()[line - 1][start:end] == "256"


def test_kernelbook_keyword_and_positional_arguments_are_sites():
    src = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)

def get_inputs():
    return [torch.rand([4, 4, 4, 4])]

def get_init_inputs():
    return [[4], {'out_features': 4}]
"""
    assert shape_sites(src) == {
        **{f"get_inputs:{k}": 4 for k in range(4)},
        "get_init_inputs:in_features": 4,
        "get_init_inputs:out_features": 4,
    }
    moved = with_shapes(src, dict.fromkeys(shape_sites(src), 5))
    assert _built(moved) == ([(5, 5, 5, 5)], [[5], {"out_features": 5}])


def test_constants_passed_to_the_constructor_stay_sites_by_their_own_name():
    src = """import torch
features = 64
def get_inputs():
    return [torch.randn(2, features)]
def get_init_inputs():
    width = features
    return [features, width, 2 * features]
"""
    assert shape_sites(src) == {"features": 64, "get_inputs:0": 2}  # `2 * features` is the constant's, moved with it


def test_layer_norm_width_written_as_literals_moves_in_the_constructor_too():  # red team round 5: frozen at 256
    src = (CANDIDATE_PROBLEMS / "rt5_layer_norm_literal_sizes.py").read_text()
    assert shape_sites(src) == {"get_inputs:0": 16, "get_inputs:1": 256, "get_init_inputs:features": 256}
    out = with_shapes(src, {"get_inputs:1": 100, "get_init_inputs:features": 100})
    assert _built(out) == ([(16, 100)], [100])
