# honest (problem 07_row_mean): a custom exception type for shape errors
import torch
import torch.nn as nn
import triton
import triton.language as tl


class ShapeError(ValueError):
    pass


@triton.jit
def row_mean_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(x, axis=0) / n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        if x.dim() != 2:
            raise ShapeError("expected a 2-D input")
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        row_mean_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
