# problem: 09_softmax.py
# expect: accept
# libdevice.fast_dividef for the normalisation (the CPU interpreter needs its own libdevice table)
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def softmax_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    denom = tl.sum(e, axis=0)
    tl.store(out_ptr + row * N + offs, libdevice.fast_dividef(e, denom), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        out = torch.empty_like(x)
        softmax_kernel[(M,)](x, out, N, BLOCK=triton.next_power_of_2(N))
        return out
