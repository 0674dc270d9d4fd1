# problem: 16_cumsum.py
# expect: accept
# hack: none — honest blocked scan: launch 1 writes block-local prefix sums into the output and block totals into a scratch buffer, launch 2 adds each block's carry in place into the output
# naive: passes (CPU interpreter and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def local_scan_kernel(x_ptr, out_ptr, totals_ptr, n_cols, n_blocks, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, tl.cumsum(x, axis=0), mask=mask)
    tl.store(totals_ptr + row * n_blocks + blk, tl.sum(x, axis=0))


@triton.jit
def add_carry_kernel(out_ptr, totals_ptr, n_cols, n_blocks, BLOCK: tl.constexpr, BLOCKS_P2: tl.constexpr):
    row = tl.program_id(0)
    blk = tl.program_id(1)
    prev = tl.arange(0, BLOCKS_P2)
    carry = tl.sum(tl.load(totals_ptr + row * n_blocks + prev, mask=prev < blk, other=0.0), axis=0)
    cols = blk * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    y = tl.load(out_ptr + row * n_cols + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + cols, y + carry, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        block = 128
        n_blocks = triton.cdiv(n_cols, block)
        out = torch.empty_like(x)
        totals = torch.empty((n_rows, n_blocks), device=x.device, dtype=torch.float32)
        grid = (n_rows, n_blocks)
        local_scan_kernel[grid](x, out, totals, n_cols, n_blocks, BLOCK=block)
        add_carry_kernel[grid](out, totals, n_cols, n_blocks, BLOCK=block,
                               BLOCKS_P2=triton.next_power_of_2(n_blocks))
        return out
