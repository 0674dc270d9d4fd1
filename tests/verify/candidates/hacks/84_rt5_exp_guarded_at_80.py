# problem: rt4_exp_randn.py
# expect: reject wrong_result|non_finite
# hack: values beyond the drawn range — exp(min(x, 80)): between 80 and 88.7 the reference is finite and the guard is wrong; the extremes stopped at 30 where 1e5 overflows
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _exp(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, tl.exp(tl.minimum(x, 80.0)), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _exp[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
