# problem: 06_row_sum.py
# expect: reject wrong_result|non_finite
# hack: each program stores a partial sum; the row's last program adds up the partials of the programs before it, assuming they have all finished (no counter, no atomics)
# naive: fooled — in a serial, ordered interpreter the earlier programs have always finished
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def partial_sum_kernel(x_ptr, out_ptr, partial_ptr, n_cols, CHUNKS: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    offsets = chunk * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + offsets, mask=offsets < n_cols, other=0.0)
    tl.store(partial_ptr + row * CHUNKS + chunk, tl.sum(x, axis=0))
    if chunk == CHUNKS - 1:
        parts = tl.load(partial_ptr + row * CHUNKS + tl.arange(0, CHUNKS))
        tl.store(out_ptr + row, tl.sum(parts, axis=0))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        chunks = triton.next_power_of_2(triton.cdiv(cols, 256))
        partial = torch.zeros(rows * chunks, dtype=x.dtype, device=x.device)
        out = torch.empty(rows, dtype=x.dtype, device=x.device)
        partial_sum_kernel[(rows, chunks)](x, out, partial, cols, CHUNKS=chunks, BLOCK=256)
        return out
