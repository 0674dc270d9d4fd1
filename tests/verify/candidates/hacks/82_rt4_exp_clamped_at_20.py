# problem: rt4_exp_randn.py
# expect: reject wrong_result|non_finite
# hack: values in the middle of the domain — exp(min(x, 20)): every distribution that reaches 20 < x < 88 also overflows the reference, so that range was dropped
# naive: fooled (red team round 4)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _exp(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.exp(tl.minimum(x, 20.0)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _exp[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
