# problem: 11_layer_norm.py
# expect: accept
# LayerNorm whose gain and bias are one (2, D) parameter, bias row first: it takes the reference's bias and gain, in that order.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _ln(x_ptr, p_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=0.0)
    mean = tl.sum(x, 0) / N
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, 0) / N
    bias = tl.load(p_ptr + offs, mask=mask, other=0.0)
    gain = tl.load(p_ptr + N + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + offs, d / tl.sqrt(var + eps) * gain + bias, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.affine = nn.Parameter(torch.stack([torch.zeros(features), torch.ones(features)]))
        self.eps = 1e-5

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        _ln[(M,)](x, self.affine, y, N, self.eps, BLOCK=triton.next_power_of_2(N))
        return y
