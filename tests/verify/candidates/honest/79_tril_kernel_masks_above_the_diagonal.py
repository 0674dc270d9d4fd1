# problem: tril.py
# expect: accept
# The lower triangle kept by the kernel: it writes x where column <= row and 0 elsewhere, one row per program.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def tril_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)  # over batch * n rows
    cols = tl.arange(0, BLOCK)
    mask = cols < n
    values = tl.load(x_ptr + row * n + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * n + cols, tl.where(cols <= row % n, values, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n = x.shape[-1]
        y = torch.empty_like(x)
        tril_kernel[(x.numel() // n,)](x, y, n, BLOCK=triton.next_power_of_2(n))
        return y
