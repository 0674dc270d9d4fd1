# problem: rt5_int_rowdot.py
# expect: accept
# honest: integer row dot products with int64 products and an int64 running sum over column blocks
# naive: an int32 accumulator overflows past 2^31
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rowdot(a_ptr, b_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    total = tl.zeros([BLOCK], dtype=tl.int64)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < N
        a = tl.load(a_ptr + row * N + cols, mask=mask, other=0).to(tl.int64)
        b = tl.load(b_ptr + row * N + cols, mask=mask, other=0).to(tl.int64)
        total += a * b
    tl.store(y_ptr + row, tl.sum(total, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        M, N = a.shape
        y = torch.empty(M, device=a.device, dtype=torch.int64)
        _rowdot[(M,)](a, b, y, N, BLOCK=256)
        return y
