# problem: rt5_softmax_local_size.py
# expect: accept
# one program per row, the row length read from the input and masked to a power-of-two block
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax(x_ptr, y_ptr, N, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * stride + offs, mask=m, other=-float("inf"))
    e = tl.where(m, tl.exp(x - tl.max(x, 0)), 0.0)
    tl.store(y_ptr + row * N + offs, e / tl.sum(e, 0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        _softmax[(M,)](x, y, N, x.stride(0), BLOCK=triton.next_power_of_2(N))
        return y
