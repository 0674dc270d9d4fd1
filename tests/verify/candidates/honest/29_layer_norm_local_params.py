# problem: 11_layer_norm.py
# expect: accept
# hack: none — honest LayerNorm in a Qwen-like style: Optional type hints, parameters bound to locals in forward (`w = self.weight`, `b = self.bias`), `float(self.eps)` / `int(features)` on constructor arguments, one tile per row sized by triton.next_power_of_2
# naive: passes (CPU interpreter, and H200)
from typing import Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, diff * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: Optional[float] = None):
        super().__init__()
        self.features = int(features)
        self.eps = float(eps) if eps is not None else 1e-5
        # Same parameter names as nn.LayerNorm's state dict, minus the prefix.
        self.weight = nn.Parameter(torch.ones(self.features))
        self.bias = nn.Parameter(torch.zeros(self.features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        w = self.weight
        b = self.bias
        x2d = x.contiguous().view(-1, self.features)
        n_rows, n_cols = x2d.shape
        y = torch.empty_like(x2d)
        layer_norm_kernel[(n_rows,)](x2d, w, b, y, n_cols, x2d.stride(0), float(self.eps),
                                     BLOCK=triton.next_power_of_2(n_cols))
        return y.view(x.shape)
