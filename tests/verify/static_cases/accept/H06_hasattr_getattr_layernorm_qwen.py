# honest (problem 11_layer_norm): Qwen-style optional affine params read with hasattr/getattr
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps,
                      HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    y = d / tl.sqrt(var + eps)
    if HAS_W:
        y = y * tl.load(w_ptr + cols, mask=mask, other=1.0)
    if HAS_B:
        y = y + tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        weight = getattr(self.ln, "weight", None)
        bias = self.ln.bias if hasattr(self.ln, "bias") else None
        y = torch.empty_like(x)
        layer_norm_kernel[(rows,)](x, weight if weight is not None else x, bias if bias is not None else x, y,
                                   cols, self.ln.eps, HAS_W=weight is not None, HAS_B=bias is not None,
                                   BLOCK=triton.next_power_of_2(cols))
        return y
