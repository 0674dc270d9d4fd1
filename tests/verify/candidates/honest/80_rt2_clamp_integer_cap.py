# problem: rt2_clamp_cap.py
# expect: accept
# ReLU capped at the constructor's integer ceiling.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def elementwise_kernel(x_ptr, y_ptr, n, param, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, 0.0), param), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cap: int):
        super().__init__()
        self.param = cap

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        elementwise_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), float(self.param), BLOCK=1024)
        return y
