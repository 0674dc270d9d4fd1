# problem: rt4_relu_rand.py
# expect: accept
# ReLU over the flattened tensor in 1024-wide blocks
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _relu(x_ptr, y_ptr, n, CUT, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.where(x > CUT, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        cut = 0.0
        n = x.numel()
        _relu[(triton.cdiv(n, 1024),)](x, y, n, cut, BLOCK=1024)
        return y
