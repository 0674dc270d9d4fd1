# problem: roll_rows.py
# expect: accept
# A circular shift of each row: every output element is loaded from (column - shift) mod width by the kernel.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def roll_kernel(x_ptr, y_ptr, width, shift, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < width
    source = (cols - shift % width + width) % width
    tl.store(y_ptr + row * width + cols, tl.load(x_ptr + row * width + source, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, shift: int):
        super().__init__()
        self.shift = shift

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, width = x.shape
        y = torch.empty_like(x)
        roll_kernel[(rows, triton.cdiv(width, 128))](x, y, width, self.shift, BLOCK=128)
        return y
