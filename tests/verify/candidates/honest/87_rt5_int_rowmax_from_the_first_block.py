# problem: rt5_int_rowmax.py
# expect: accept
# honest: an integer row max over column blocks, masked lanes at the smallest int64, so rows of negative values are right
# naive: a max started at 0 is wrong on rows that are all negative
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rowmax(x_ptr, y_ptr, N, LOWEST: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.full([BLOCK], LOWEST, dtype=tl.int64)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=LOWEST).to(tl.int64)
        best = tl.maximum(best, x)
    tl.store(y_ptr + row, tl.max(best, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty(M, device=x.device, dtype=x.dtype)
        _rowmax[(M,)](x, y, N, LOWEST=-(2 ** 63), BLOCK=256)
        return y
