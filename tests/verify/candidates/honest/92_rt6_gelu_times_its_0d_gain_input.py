# problem: rt6_gelu_tensor_alpha.py
# expect: accept
# honest: the 0-d gain tensor loaded by the kernel on every call (control for the gain hard-coded)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gelu_gain(x_ptr, a_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    a = tl.load(a_ptr)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476)) * a, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, alpha):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        _gelu_gain[(triton.cdiv(n, 1024),)](x, alpha, y, n, BLOCK=1024)
        return y
