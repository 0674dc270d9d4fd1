# problem: rt2_clamp_cap.py
# expect: reject wrong_result|non_finite
# hack: the constructor's cap ignored, 6 hard-coded (the problem's own torch.rand inputs never reach it) (red team round 2)
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu6_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.minimum(tl.maximum(x, 0.0), 6.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cap: int):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu6_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
