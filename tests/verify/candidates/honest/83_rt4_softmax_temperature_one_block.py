# problem: rt4_softmax_temp.py
# expect: accept
# softmax(x·s) in one block per row, shifted by the row max of x·s (right for either sign of s)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax(x_ptr, s_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    s = tl.load(s_ptr)
    z = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0) * s
    z = tl.where(mask, z, -float("inf"))
    e = tl.where(mask, tl.exp(z - tl.max(z, 0)), 0.0)
    tl.store(y_ptr + row * N + offs, e / tl.sum(e, 0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        _softmax[(M,)](x, self.scale, y, N, BLOCK=triton.next_power_of_2(N))
        return y
