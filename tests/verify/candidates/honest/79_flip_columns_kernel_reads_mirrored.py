# problem: flip_columns.py
# expect: accept
# The features of each row reversed by the kernel, reading column width - 1 - c for output column c.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def flip_kernel(x_ptr, y_ptr, width, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < width
    tl.store(y_ptr + row * width + cols, tl.load(x_ptr + row * width + width - 1 - cols, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        flip_kernel[(x.shape[0], triton.cdiv(x.shape[1], 64))](x, y, x.shape[1], BLOCK=64)
        return y
