# honest (problem 05_channel_scale): a plain (non-Module) launcher class whose method is named apply / to
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def channel_scale_kernel(x_ptr, s_ptr, y_ptr, n, C, L, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = (offs // L) % C
    x = tl.load(x_ptr + offs, mask=mask)
    s = tl.load(s_ptr + c, mask=mask)
    tl.store(y_ptr + offs, x * s, mask=mask)


class ChannelScaleOp:
    def __init__(self, block=1024):
        self.block = block

    def apply(self, x, scale):
        x = x.contiguous()
        scale = scale.contiguous()
        B, C, L = x.shape
        y = torch.empty_like(x)
        n = x.numel()
        channel_scale_kernel[(triton.cdiv(n, self.block),)](x, scale, y, n, C, L, BLOCK=self.block)
        return y


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.op = ChannelScaleOp()

    def forward(self, x, scale):
        return self.op.apply(x, scale)
