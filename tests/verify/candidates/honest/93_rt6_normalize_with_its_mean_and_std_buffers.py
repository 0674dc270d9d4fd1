# problem: rt6_buffer_normalize.py
# expect: accept
# honest: mean and std buffers registered as the reference draws them and read on every call (control for folding
# them at construction)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _normalize(x_ptr, mean_ptr, std_ptr, y_ptr, n, F, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    col = offs % F
    x = tl.load(x_ptr + offs, mask=mask)
    m = tl.load(mean_ptr + col, mask=mask)
    s = tl.load(std_ptr + col, mask=mask, other=1.0)
    tl.store(y_ptr + offs, (x - m) / s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.register_buffer("mean", torch.randn(features))
        self.register_buffer("std", torch.rand(features) + 0.5)

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _normalize[(triton.cdiv(n, 1024),)](x, self.mean, self.std, y, n, x.shape[-1], BLOCK=1024)
        return y
