# (e): a dead top-level function (body never judged) is called by name from a string annotation
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out

import typing


def cheat(x):  # body never judged: nothing loads `cheat` as a Name
    from torch.utils._python_dispatch import _disable_current_modes
    with _disable_current_modes():
        return torch.relu(x)


def hint(a: "(BOX.append(cheat(X)), int)[1]"):
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        launch(x)
        box = []
        typing.get_type_hints(hint, None, {"X": x, "BOX": box})
        return box[0]
