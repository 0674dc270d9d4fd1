# honest (problem 06_row_sum): a try/except that only re-raises with context (no fallback)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        try:
            row_sum_kernel[(rows,)](x, y, cols, BLOCK=1024)
        except Exception as exc:
            raise RuntimeError(f"row_sum kernel failed for input of shape {tuple(x.shape)}") from exc
        return y
