# honest (problem 12_rms_norm): weight created with an in-place init in __init__ (overwritten by the reference's weights)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    y = x * (1.0 / tl.sqrt(ms + eps)) * w
    tl.store(out_ptr + row * n_cols + cols, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(features).normal_(mean=0.0, std=1.0))
        self.eps = 1e-6

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        rms_norm_kernel[(rows,)](x, self.weight, out, cols, self.eps, BLOCK=triton.next_power_of_2(cols))
        return out
