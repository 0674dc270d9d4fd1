# honest (problem 03_silu): older explicit base-class init `nn.Module.__init__(self)`
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        nn.Module.__init__(self)
        self.block = 1024

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        silu_kernel[(triton.cdiv(n, self.block),)](x, y, n, BLOCK=self.block)
        return y
