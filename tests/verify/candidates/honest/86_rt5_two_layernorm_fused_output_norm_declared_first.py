# problem: rt5_two_layernorm.py
# expect: accept
# honest: both LayerNorms and the ReLU in one kernel, the affine tensors under names of its own, the output norm's declared
# first (built alike: ones and zeros, one launch takes all four, so no order of use tells them apart)
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _norm(x, m, N, eps):
    mean = tl.sum(x, 0) / N
    d = tl.where(m, x - mean, 0.0)
    return d * tl.rsqrt(tl.sum(d * d, 0) / N + eps)


@triton.jit
def _two_ln(x_ptr, g1_ptr, b1_ptr, g2_ptr, b2_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=0.0)
    h = _norm(x, m, N, eps) * tl.load(g1_ptr + offs, mask=m, other=0.0) + tl.load(b1_ptr + offs, mask=m, other=0.0)
    h = tl.where(m, tl.maximum(h, 0.0), 0.0)
    y = _norm(h, m, N, eps) * tl.load(g2_ptr + offs, mask=m, other=0.0) + tl.load(b2_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * N + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.out_gain = nn.Parameter(torch.ones(features))
        self.out_shift = nn.Parameter(torch.zeros(features))
        self.in_gain = nn.Parameter(torch.ones(features))
        self.in_shift = nn.Parameter(torch.zeros(features))

    def forward(self, x):
        x = x.contiguous()
        N = x.shape[-1]
        y = torch.empty_like(x)
        _two_ln[(x.numel() // N,)](x, self.in_gain, self.in_shift, self.out_gain, self.out_shift, y, N, 1e-5,
                                   BLOCK=triton.next_power_of_2(N))
        return y
