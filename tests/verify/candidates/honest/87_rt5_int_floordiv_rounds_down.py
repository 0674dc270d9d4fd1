# problem: rt5_int_floordiv.py
# expect: accept
# honest: Triton's integer // truncates toward 0 (as C does); the quotient is moved down one where the remainder's
# sign differs from the divisor's, which is torch.floor_divide's rounding toward -inf
# naive: a // b alone is wrong for operands of opposite signs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _floordiv(a_ptr, b_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0)
    b = tl.load(b_ptr + offs, mask=mask, other=1)
    q = a // b
    r = a - q * b
    q = tl.where((r != 0) & ((r < 0) != (b < 0)), q - 1, q)
    tl.store(y_ptr + offs, q, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        y = torch.empty_like(a)
        n = a.numel()
        _floordiv[(triton.cdiv(n, 1024),)](a, b, y, n, BLOCK=1024)
        return y
