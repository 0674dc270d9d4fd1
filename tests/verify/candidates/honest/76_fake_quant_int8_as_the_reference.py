# problem: fake_quant_int8.py
# expect: accept
# hack: none — rounds to int8 exactly as the reference quantises: the reference turns floats into integers itself (round 1: a false reject)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def fake_quant_kernel(x_ptr, y_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    q = tl.minimum(tl.maximum(libdevice.rint(x / scale), -128.0), 127.0).to(tl.int8)   # the int8 level, as the reference
    tl.store(y_ptr + offs, q.to(tl.float32) * scale, mask=m)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        fake_quant_kernel[(triton.cdiv(n, 1024),)](x, y, n, self.scale, BLOCK=1024)
        return y
