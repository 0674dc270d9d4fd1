# problem: rt4_rowsum_rand.py
# expect: accept
# a row sum over 1024-wide blocks, every tail masked
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rowsum(x_ptr, y_ptr, N, STOP, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + offs, mask=offs < STOP, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, 0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty(M, device=x.device, dtype=x.dtype)
        _rowsum[(M,)](x, y, N, N, BLOCK=1024)
        return y
