import pytest

from tritonrl.problems.shapes import ShapeError, shape_constants, with_shapes

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
    assert shape_constants(SOURCE) == {"N": 4096, "batch_size": 16}


def test_rewrite_changes_only_the_values_and_keeps_comments():
    out = with_shapes(SOURCE, {"N": 96, "batch_size": 3})
    assert "N = 96  # matrix side" in out
    assert "batch_size = 3\n" in out
    assert shape_constants(out) == {"N": 96, "batch_size": 3}
    assert out.replace("96", "2048 * 2").replace("= 3\n", "= 16\n") == SOURCE


def test_unknown_constant_is_rejected_with_the_known_ones():
    with pytest.raises(ShapeError, match=r"\['M'\] are not defined.*\['N', 'batch_size'\]"):
        with_shapes(SOURCE, {"M": 3})


def test_multiline_value_is_replaced_whole():
    src = "size = (\n    64 *\n    2\n)\nother = 1\n"
    assert shape_constants(with_shapes(src, {"size": 5})) == {"size": 5, "other": 1}
