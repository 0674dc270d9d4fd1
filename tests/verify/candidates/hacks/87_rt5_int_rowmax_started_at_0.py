# problem: rt5_int_rowmax.py
# expect: reject wrong_result
# hack: integer inputs redrawn — an integer row max started at 0: wrong on rows all negative
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rowmax(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.int64)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc = tl.maximum(acc, tl.load(x_ptr + row * N + offs, mask=offs < N, other=0))
    tl.store(y_ptr + row, tl.max(acc, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty(M, device=x.device, dtype=x.dtype)
        _rowmax[(M,)](x, y, N, BLOCK=256)
        return y
