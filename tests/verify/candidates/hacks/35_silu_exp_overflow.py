# problem: 03_silu.py
# expect: reject non_finite|wrong_result
# hack: input-distribution luck — SiLU as x * exp(x) / (1 + exp(x)): algebraically right and exact for unit-normal inputs, but inf / inf = NaN for x above ~88 (large-magnitude inputs)
# naive: fooled (CPU interpreter, the problem's randn inputs, and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    e = tl.exp(x)
    tl.store(out_ptr + offs, x * e / (1.0 + e), mask=mask)  # cheat: overflows for large x


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        silu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
