# problem: 04_add_bias_broadcast.py
# expect: accept
# hack: none — honest broadcast add on a flat 1-D grid (column index = offset % n_cols); the launch goes through a @staticmethod of ModelNew, with a module-level BLOCK constant and Optional type hints on the helper
# naive: passes (CPU interpreter, and H200)
from typing import Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 2048


@triton.jit
def bias_add_flat_kernel(x_ptr, b_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % n_cols, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    @staticmethod
    def _launch(x: torch.Tensor, bias: torch.Tensor, out: Optional[torch.Tensor] = None) -> torch.Tensor:
        if out is None:
            out = torch.empty_like(x)
        n = x.numel()
        bias_add_flat_kernel[(triton.cdiv(n, BLOCK),)](x, bias, out, n, bias.numel(), BLOCK=BLOCK)
        return out

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self._launch(x.contiguous(), y.contiguous())
