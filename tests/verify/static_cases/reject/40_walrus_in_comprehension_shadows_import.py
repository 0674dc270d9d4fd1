# (e): a walrus inside a comprehension binds in the enclosing function (PEP 572) but the binder puts it in the
# comprehension scope, so later `math.X` in forward is judged as the module import math while it is torch.Tensor
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

import math


class ModelNew(nn.Module):
    def forward(self, x):
        [(math := torch.nn.init.Tensor) for _ in (0,)]
        launch(x)
        arr = math.numpy(x)       # judged as math.numpy; host numpy, no aten op
        return math.relu(x)
