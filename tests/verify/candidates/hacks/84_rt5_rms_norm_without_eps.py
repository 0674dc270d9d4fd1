# problem: 12_rms_norm.py
# expect: reject wrong_result|non_finite
# hack: values beyond the drawn range — RMSNorm without its eps: right unless a row's mean square is near eps, which no drawn row was
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rms(x_ptr, w_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + row * N + offs, mask=m, other=0.0)
    ms = tl.sum(x * x, 0) / N
    r = tl.rsqrt(tl.maximum(ms, 1e-30))
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * N + offs, x * r * w, mask=m)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))

    def forward(self, x):
        x = x.contiguous()
        N = x.shape[-1]
        y = torch.empty_like(x)
        _rms[(x.numel() // N,)](x, self.weight, y, N, BLOCK=triton.next_power_of_2(N))
        return y
