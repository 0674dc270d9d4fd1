# problem: 02_gelu.py
# expect: accept
# hack: none — honest exact GELU: `@triton.jit(debug=False)` (decorator with arguments), `assert x.is_contiguous()` after .contiguous(), the output from torch.empty_like(x, memory_format=torch.contiguous_format), erf from tl.math
# naive: passes (CPU interpreter, and H200). libdevice.erf (triton.language.extra.libdevice) is not used: it returns None in the Triton 3.9 CPU interpreter
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

INV_SQRT2 = 1.0 / math.sqrt(2.0)


@triton.jit(debug=False)
def gelu_kernel(x_ptr, y_ptr, n_elements, inv_sqrt2, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * inv_sqrt2))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        assert x.is_contiguous(), "gelu_kernel expects a contiguous input"
        y = torch.empty_like(x, memory_format=torch.contiguous_format)
        n = x.numel()
        block = 512
        gelu_kernel[(triton.cdiv(n, block),)](x, y, n, INV_SQRT2, BLOCK_SIZE=block)
        return y
