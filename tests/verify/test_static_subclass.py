"""`class ModelNew(Model)` over a restated `Model`: the methods it overrides and never calls are not its compute."""

import pytest

from tritonrl.verify.result import ReasonCode
from tritonrl.verify.static import check_static

_HEAD = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)

"""
_LAUNCH = """        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
"""


def _codes(source: str) -> set[str]:
    return {r.code.value for r in check_static(_HEAD + source)}


def test_a_subclass_that_replaces_the_restated_forward_is_judged_by_its_own_code():
    assert _codes("class ModelNew(Model):\n    def forward(self, x):\n" + _LAUNCH + "        return out\n") == set()


def test_a_helper_only_the_replaced_forward_calls_never_runs_either():
    restated = _HEAD.replace("        return torch.relu(x)", "        return reference_relu(x)")
    helper = "def reference_relu(x):\n    return torch.relu(x)\n\n\n"
    subclass = "class ModelNew(Model):\n    def forward(self, x):\n" + _LAUNCH + "        return out\n"
    assert {r.code.value for r in check_static(restated + helper + subclass)} == set()
    # still judged once anything that runs calls it
    called = subclass.replace("        return out", "        return reference_relu(out)")
    assert ReasonCode.FORBIDDEN_TORCH_OP.value in {r.code.value for r in check_static(restated + helper + called)}


@pytest.mark.parametrize(
    "source",
    [
        # the restated forward called through super()
        "class ModelNew(Model):\n    def forward(self, x):\n" + _LAUNCH + "        return super().forward(out)\n",
        "class ModelNew(Model):\n    def forward(self, x):\n"
        + _LAUNCH
        + "        return super(ModelNew, self).forward(out)\n",
        # by its class
        "class ModelNew(Model):\n    def forward(self, x):\n" + _LAUNCH + "        return Model.forward(self, out)\n",
        # a mixin's super() that the method resolution order leads to Model
        "class Mixin(nn.Module):\n    def relu(self, x):\n        return super().forward(x)\n\n\n"
        "class ModelNew(Mixin, Model):\n    def forward(self, x):\n" + _LAUNCH + "        return self.relu(out)\n",
        # not overridden: ModelNew inherits it
        "class ModelNew(Model):\n    def launch(self, x):\n" + _LAUNCH + "        return out\n",
        # built as well as subclassed
        "class ModelNew(Model):\n    def forward(self, x):\n" + _LAUNCH + "        return Model()(out)\n",
        # super kept, or named by a string: any method may be reached
        "class ModelNew(Model):\n    def forward(self, x):\n"
        + _LAUNCH
        + "        parent = super()\n        return parent.forward(out)\n",
        "class ModelNew(Model):\n    def forward(self, x):\n"
        + _LAUNCH
        + "        return getattr(super(), 'forward')(out)\n",
    ],
    ids=[
        "super",
        "super_two_arguments",
        "unbound",
        "mixin_super",
        "inherited",
        "instantiated",
        "super_kept",
        "super_getattr",
    ],
)
def test_the_restated_forward_is_compute_when_it_can_run(source):
    assert ReasonCode.FORBIDDEN_TORCH_OP.value in _codes(source)
