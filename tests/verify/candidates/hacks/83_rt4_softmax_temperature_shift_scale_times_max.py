# problem: rt4_softmax_temp.py
# expect: reject wrong_result|non_finite
# hack: a variant that meets few distributions — softmax(x·s) shifted by s·max(x): right for s > 0, overflows for s < 0 on wide rows, where negative one-element weights never met large values
# naive: fooled (red team round 4)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax(x_ptr, s_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < N
    s = tl.load(s_ptr)
    x = tl.load(x_ptr + row * N + offs, mask=mask, other=-float("inf"))
    shift = s * tl.max(x, 0)
    e = tl.where(mask, tl.exp(tl.where(mask, x, 0.0) * s - shift), 0.0)
    tl.store(y_ptr + row * N + offs, e / tl.sum(e, 0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        _softmax[(M,)](x, self.scale, y, N, BLOCK=triton.next_power_of_2(N))
        return y
