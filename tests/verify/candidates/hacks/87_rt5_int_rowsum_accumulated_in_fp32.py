# problem: rt5_int_rowsum.py
# expect: reject wrong_result
# hack: integer inputs redrawn — int64 row sums accumulated in fp32: exact only below 2^24
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rowsum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + offs, mask=offs < N, other=0).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, 0).to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty(M, device=x.device, dtype=x.dtype)
        _rowsum[(M,)](x, y, N, BLOCK=256)
        return y
