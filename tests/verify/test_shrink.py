from pathlib import Path

import pytest

from tritonrl.problems.shapes import ShapeError, with_shapes
from tritonrl.verify.shrink import element_count, shrink_overrides

MATMUL = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
    def forward(self, x):
        return self.linear(x)

batch_size = 4096
in_features = 8192
out_features = 4096
kernel_size = 3

def get_inputs():
    return [torch.rand(batch_size, in_features)]

def get_init_inputs():
    return [out_features]
"""


def test_element_count_uses_meta_tensors(tmp_path):
    # 4096*8192 input + 8192*4096 weight + 4096 bias + 4096*4096 output, nothing allocated
    assert element_count(MATMUL, tmp_path) == 4096 * 8192 * 2 + 4096 + 4096 * 4096


def test_shrinks_largest_constants_first_and_leaves_small_ones(tmp_path):
    overrides = shrink_overrides(MATMUL, budget=1 << 16)
    assert "kernel_size" not in overrides
    assert set(overrides) == {"batch_size", "in_features", "out_features"}
    assert element_count(with_shapes(MATMUL, overrides), Path(tmp_path)) <= 1 << 16


def test_small_problem_is_left_alone():
    assert shrink_overrides(MATMUL.replace("4096", "16").replace("8192", "32"), budget=1 << 16) == {}


def test_unshrinkable_problem_is_reported():
    with pytest.raises(ShapeError, match="cannot shrink"):
        shrink_overrides(MATMUL, budget=10)


HINGE = """import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, predictions, targets):
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))

batch_size = 4096
input_shape = (4096,)

def get_inputs():
    return [torch.rand(batch_size, *input_shape), torch.rand(batch_size)]

def get_init_inputs():
    return []
"""


def test_tuple_elements_shrink_and_tied_sites_halve_together(tmp_path):
    # (batch, width) * (batch,) broadcasts only while width == batch: halving one of them alone would break it
    overrides = shrink_overrides(HINGE, budget=1 << 16)
    assert set(overrides) == {"batch_size", "input_shape:0"} and overrides["batch_size"] == overrides["input_shape:0"]
    small = with_shapes(HINGE, overrides)
    assert "input_shape = (128,)" in small and element_count(small, tmp_path) <= 1 << 16
