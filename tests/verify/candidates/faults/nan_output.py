# problem: 11_layer_norm.py
# expect: reject non_finite
# hack: none — fault: the variance is divided by (n_cols - n_cols), so every output is NaN or inf
# naive: caught — NaN/inf
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / (n_cols - n_cols)  # fault: division by zero
    rstd = 1.0 / tl.sqrt(var - var + eps * 0.0)
    w = tl.load(w_ptr + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, xc * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        layer_norm_kernel[(x.shape[0],)](x, self.ln.weight, self.ln.bias, out, x.shape[1], self.ln.eps,
                                         BLOCK=triton.next_power_of_2(x.shape[1]))
        return out
