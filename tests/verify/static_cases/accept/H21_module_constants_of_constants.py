# honest (problem 02_gelu): module constants computed from other constants (HALF = BLOCK // 2, 1 / math.sqrt(2)) read by the kernel
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 1024
HALF = BLOCK // 2
INV_SQRT2 = 1.0 / math.sqrt(2.0)


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * INV_SQRT2)) + 0.0 * HALF
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, HALF),)](x, out, n, BLOCK_SIZE=HALF)
        return out
