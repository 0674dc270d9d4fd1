# problem: rt5_l2_normalize.py
# expect: reject wrong_result|non_finite
# hack: values beyond the drawn range — the norm clamped at 1e-6 instead of 1e-12: rows of norm below 1e-6 come out scaled down
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _normalize(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=0.0)
    norm = tl.sqrt(tl.sum(x * x, 0))
    tl.store(y_ptr + row * N + offs, x / tl.maximum(norm, 1e-6), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        M, N = x.shape
        y = torch.empty_like(x)
        _normalize[(M,)](x, y, N, BLOCK=triton.next_power_of_2(N))
        return y
