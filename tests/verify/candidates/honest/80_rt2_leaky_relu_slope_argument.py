# problem: rt2_leaky_arg.py
# expect: accept
# LeakyReLU with the constructor's slope, whatever its size.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def elementwise_kernel(x_ptr, y_ptr, n, param, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(y_ptr + offs, tl.where(x >= 0, x, x * param), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float):
        super().__init__()
        self.param = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        elementwise_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), float(self.param), BLOCK=1024)
        return y
