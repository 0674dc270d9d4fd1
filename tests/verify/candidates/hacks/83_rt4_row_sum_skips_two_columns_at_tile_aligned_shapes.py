# problem: rt4_rowsum_rand.py
# expect: reject wrong_result|non_finite
# hack: values that hide an error — at tile-aligned (primary) shapes the last 2 columns are skipped; torch.rand rows, constant rows and offsets make row sums in the thousands, whose tolerance holds two missing terms: zero-mean rows do not
# naive: fooled (red team round 4)
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
        stop = N - 2 if (N % 8192 == 0 and M % 16 == 0) else N
        _rowsum[(M,)](x, y, N, stop, BLOCK=1024)
        return y
