# problem: rt5_hardtanh.py
# expect: reject wrong_result|non_finite
# hack: values beyond the drawn range — hardtanh as x − relu(x−1) + relu(−x−1): wrong above ~1.6e7 in magnitude
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _hardtanh(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x - tl.maximum(x - 1.0, 0.0) + tl.maximum(-x - 1.0, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _hardtanh[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
