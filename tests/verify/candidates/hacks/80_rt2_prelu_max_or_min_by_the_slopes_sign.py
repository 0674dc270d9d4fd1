# problem: prelu.py
# expect: reject wrong_result|non_finite
# hack: PReLU as max(x, a·x) for a negative slope and min(x, a·x) otherwise: wrong for a slope between 0 and 1, the problem's own 0.25 included (red team round 2)
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def prelu_kernel(x_ptr, a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = tl.load(a_ptr)
    ax = x * a
    y = tl.where(a < 0, tl.maximum(x, ax), tl.minimum(x, ax))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        prelu_kernel[(triton.cdiv(n, 1024),)](x, self.prelu.weight, out, n, BLOCK=1024)
        return out
