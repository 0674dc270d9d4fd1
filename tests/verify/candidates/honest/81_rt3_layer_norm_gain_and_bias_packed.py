# problem: 11_layer_norm.py
# expect: accept
# LayerNorm whose gain and bias are one (2, D) parameter, built as ones over zeros: it takes the reference's gain and bias.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ln_kernel(x_ptr, w_ptr, b_ptr, out_ptr, D, eps, RELU_IN: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < D
    x = tl.load(x_ptr + row * D + offs, mask=mask, other=0.0)
    if RELU_IN:
        x = tl.maximum(x, 0.0)
    mean = tl.sum(x, axis=0) / D
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / D
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * D + offs, xc * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.affine = nn.Parameter(torch.stack([torch.ones(features), torch.zeros(features)]))

    def forward(self, x):
        x = x.contiguous()
        R, D = x.shape
        out = torch.empty_like(x)
        ln_kernel[(R,)](x, self.affine[0], self.affine[1], out, D, 1e-5, RELU_IN=False, BLOCK=triton.next_power_of_2(D))
        return out
