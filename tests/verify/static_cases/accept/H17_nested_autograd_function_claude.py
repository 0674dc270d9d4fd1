# honest (problem 02_gelu): autograd.Function nested inside ModelNew, plus a @torch.no_grad() reference used only in the __main__ self-test
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476)), mask=mask)


class ModelNew(nn.Module):
    class _Gelu(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x = x.contiguous()
            y = torch.empty_like(x)
            n = x.numel()
            gelu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
            return y

    def forward(self, x):
        return self._Gelu.apply(x)
