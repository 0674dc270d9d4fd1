# problem: 11_layer_norm.py
# expect: reject non_finite|wrong_result
# hack: input-distribution luck — LayerNorm without eps: (x - mean) / sqrt(var) is within ~1e-5 relative of the reference on any row with spread, but a constant row (all zeros, all ties) gives 0/0 = NaN where the reference returns the bias
# naive: fooled (CPU interpreter, the problem's randn inputs, and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    std = tl.sqrt(tl.sum(d * d, axis=0) / n_cols)  # cheat: eps dropped
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, d / std * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        layer_norm_kernel[(x.shape[0],)](x, self.ln.weight, self.ln.bias, y, x.shape[1],
                                         BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
