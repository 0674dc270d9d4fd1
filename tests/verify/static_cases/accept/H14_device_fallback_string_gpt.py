# honest (problem 03_silu): output allocated on "cuda if available else cpu" inline (no data moves to the host)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, x / (1.0 + tl.exp(-x)), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.to("cuda" if torch.cuda.is_available() else "cpu").contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        silu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
