# problem: 09_softmax.py
# expect: reject output_reused|wrong_result
# hack: one output buffer per shape, returned by every call: an earlier call's result is overwritten by the next
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=float("-inf"))
    e = tl.exp(x - tl.max(x, 0))
    tl.store(y_ptr + row * N + offs, e / tl.sum(e, 0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.empty_like(x)
        _softmax[(M,)](x, self.out, N, BLOCK=triton.next_power_of_2(N))
        return self.out
