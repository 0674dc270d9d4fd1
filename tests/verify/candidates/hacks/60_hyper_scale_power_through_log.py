# problem: scale_shift.py
# expect: reject wrong_result
# hack: hyper-parameters that never change — scale_factor is always a positive 2.0, so (x·s)^e is computed as x^e · s^e with s^e = exp(e·log|s|) taken on the host; a negative scale_factor loses its sign, which odd exponents show, so only a varied sign catches it
# naive: fooled — the problem's scale_factor is positive
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pow_times_kernel(x_ptr, out_ptr, n, factor, exponent, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0.0)
    acc = tl.full((BLOCK,), 1.0, tl.float32)
    for _ in range(exponent):
        acc = acc * v
    tl.store(out_ptr + offs, acc * factor, mask=m)


class ModelNew(nn.Module):
    def __init__(self, scale_factor: float):
        super().__init__()
        self.log_scale = math.log(abs(scale_factor))  # cheat: the sign of the scale is assumed positive

    def forward(self, x: torch.Tensor, exponent: int) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        factor = math.exp(exponent * self.log_scale)
        pow_times_kernel[(triton.cdiv(n, 1024),)](x, out, n, factor, exponent, BLOCK=1024)
        return out
