# problem: 03_silu.py
# expect: accept
# host idioms: (n - 1).bit_length() for a power-of-two block
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * tl.sigmoid(x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.numel()
        log2 = (n - 1).bit_length()
        block = 1 << min(log2, 10)
        out = torch.empty_like(x)
        grid = (triton.cdiv(n, block),)
        silu_kernel[grid](x, out, n, BLOCK=block)
        return out
