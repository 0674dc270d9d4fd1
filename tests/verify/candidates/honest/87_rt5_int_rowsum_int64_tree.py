# problem: rt5_int_rowsum.py
# expect: accept
# honest: integer row sums kept in int64 all the way: a 2-D grid of 256-wide chunks, int64 atomic_add into a zeroed output
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rowsum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=0)
    tl.atomic_add(y_ptr + row, tl.sum(x, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.zeros(M, device=x.device, dtype=x.dtype)
        _rowsum[(M, triton.cdiv(N, 256))](x, y, N, BLOCK=256)
        return y
