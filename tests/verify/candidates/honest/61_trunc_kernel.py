# problem: trunc.py
# expect: accept
# hack: none — honest trunc: the kernel casts each element to int32 and back (rounding toward zero, as torch.trunc does) and keeps elements of magnitude 2**23 or more as they are (an fp32 that large has no fraction, and may not fit an int32); the cast round trip happens inside the kernel, so no host cast is involved
# naive: passes (CPU interpreter)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def trunc_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    whole = x.to(tl.int32).to(x.dtype)
    tl.store(out_ptr + offsets, tl.where(tl.abs(x) < 8388608.0, whole, x), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        trunc_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
