# problem: rt4_sin_randn.py
# expect: reject wrong_result|non_finite
# hack: values of large magnitude — sin after x - round(x/2π)·2π in fp32: wrong beyond |x| ~ 1e4
# naive: fooled (red team round 4)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sin(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    k = tl.floor(x * 0.15915494309189535 + 0.5)
    r = x - k * 6.2831854820251465
    tl.store(y_ptr + offs, tl.sin(r), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _sin[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
