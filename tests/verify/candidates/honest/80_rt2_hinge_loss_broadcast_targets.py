# problem: rt2_hinge_mul.py
# expect: accept
# Hinge loss: each program sums clamp(1 - p * t, 0) over one row (t broadcast from a column), the host divides by the count.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hinge_rows_kernel(p_ptr, t_ptr, sums_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    target = tl.load(t_ptr + row)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < cols
        p = tl.load(p_ptr + row * cols + offs, mask=mask, other=0.0)
        acc += tl.where(mask, tl.maximum(1.0 - p * target, 0.0), 0.0)
    tl.store(sums_ptr + row, tl.sum(acc, axis=0))


@triton.jit
def mean_kernel(sums_ptr, out_ptr, rows, count, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, rows, BLOCK):
        acc += tl.load(sums_ptr + start + offs, mask=start + offs < rows, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / count)


class ModelNew(nn.Module):
    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        p = predictions.contiguous()
        t = targets.contiguous()
        rows, cols = p.shape
        sums = torch.empty(rows, device=p.device, dtype=torch.float32)
        out = torch.empty((), device=p.device, dtype=torch.float32)
        hinge_rows_kernel[(rows,)](p, t, sums, cols, BLOCK=256)
        mean_kernel[(1,)](sums, out, rows, rows * cols, BLOCK=256)
        return out
