# problem: argmax_rows.py
# expect: accept
# hack: none — argmax of each row with tl.max and the smallest index where the row equals it, stored as int32 and widened to the int64 output on the host (idx.long()); the int32 indices were computed from fp32 data, but integers the problem outputs are no fixed point (red team B h09)
# naive: passes (CPU interpreter, max abs error 0)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(x_ptr, idx_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
    best = tl.max(x, axis=0)
    idx = tl.min(tl.where(x == best, cols, BLOCK), axis=0)   # first index of the maximum
    tl.store(idx_ptr + row, idx)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        idx = torch.empty(rows, device=x.device, dtype=torch.int32)
        argmax_kernel[(rows,)](x, idx, cols, BLOCK=triton.next_power_of_2(cols))
        return idx.long()                 # int32 indices widened to the int64 the reference returns
