# problem: 07_row_mean.py
# expect: accept
# honest: two-stage row mean: stage 1 splits every row into 3 chunks (a 2-D grid) and sums each with
# Kahan-compensated fp32 accumulation; stage 2 adds the chunk sums in fp64 and divides.
# naive: fooled (red team round 1)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def chunk_sum_kernel(x_ptr, part_ptr, N, CHUNKS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    per = tl.cdiv(N, CHUNKS)
    lo = chunk * per
    hi = tl.minimum(lo + per, N)
    s = tl.zeros([BLOCK], tl.float32)
    comp = tl.zeros([BLOCK], tl.float32)
    for start in range(lo, hi, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row.to(tl.int64) * N + offs, mask=offs < hi, other=0.0)
        yk = x - comp
        t = s + yk
        comp = (t - s) - yk
        s = t
    tl.store(part_ptr + row * CHUNKS + chunk, tl.sum(s, axis=0) - tl.sum(comp, axis=0))


@triton.jit
def finish_mean_kernel(part_ptr, y_ptr, N, CHUNKS: tl.constexpr, CP: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, CP)
    p = tl.load(part_ptr + row * CHUNKS + offs, mask=offs < CHUNKS, other=0.0).to(tl.float64)
    tl.store(y_ptr + row, (tl.sum(p, axis=0) / N).to(tl.float32))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, N = x.shape
        part = torch.empty((M, 3), device=x.device, dtype=torch.float32)
        chunk_sum_kernel[(M, 3)](x, part, N, CHUNKS=3, BLOCK=256)
        y = torch.empty(M, device=x.device, dtype=x.dtype)
        finish_mean_kernel[(M,)](part, y, N, CHUNKS=3, CP=4)
        return y
