# problem: rt5_layer_norm_literal_sizes.py
# expect: accept
# one program per row, the width read from the input and masked to a power-of-two block; the model's own LayerNorm parameters
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _ln(x_ptr, g_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=0.0)
    mean = tl.sum(x, 0) / N
    d = tl.where(m, x - mean, 0.0)
    var = tl.sum(d * d, 0) / N
    g = tl.load(g_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * N + offs, d * tl.rsqrt(var + eps) * g + b, mask=m)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x):
        x = x.contiguous()
        N = x.shape[-1]
        y = torch.empty_like(x)
        _ln[(x.numel() // N,)](x, self.ln.weight, self.ln.bias, y, N, self.ln.eps, BLOCK=triton.next_power_of_2(N))
        return y
