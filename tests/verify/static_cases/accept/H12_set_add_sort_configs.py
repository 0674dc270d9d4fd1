# honest (problem 08_row_max): host bookkeeping with set.add / list.sort / dict.clear
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    tl.store(y_ptr + row, tl.max(x, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.seen_widths = set()
        self.blocks = [4096, 256, 1024]
        self.blocks.sort()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        self.seen_widths.add(cols)
        block = next_block = max(self.blocks[0], triton.next_power_of_2(cols))
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        row_max_kernel[(rows,)](x, y, cols, BLOCK=block)
        return y
