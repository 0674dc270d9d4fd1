# problem: rt5_pow_int.py
# expect: reject wrong_result
# hack: forward integers moved far — the exponent read through its low three bits only: right for 0..7, wrong for 9 or more
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _pow(x_ptr, y_ptr, n, p, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    result = tl.full([BLOCK], 1.0, tl.float32)
    base = x
    for i in tl.static_range(3):
        bit = (p >> i) & 1
        result = tl.where(bit == 1, result * base, result)
        base = base * base
    tl.store(y_ptr + offs, result, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, p):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _pow[(triton.cdiv(n, 1024),)](x, y, n, p, BLOCK=1024)
        return y
