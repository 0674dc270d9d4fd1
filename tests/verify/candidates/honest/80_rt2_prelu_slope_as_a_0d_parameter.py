# problem: prelu.py
# expect: accept
# PReLU whose slope is a 0-d parameter (the reference's is (1,)): matched by its element count (red team round 2)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def prelu_kernel(x_ptr, a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = tl.load(a_ptr)
    tl.store(out_ptr + offs, tl.where(x >= 0, x, a * x), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.slope = nn.Parameter(torch.tensor(0.25))

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        prelu_kernel[(triton.cdiv(n, 1024),)](x, self.slope, out, n, BLOCK=1024)
        return out
