# problem: rt6_buffer_channel_scale.py
# expect: accept
# honest: the calibration buffer registered under a name of its own and read on every call (control for the copy made
# at construction)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, s_ptr, out_ptr, C, L, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    s = tl.load(s_ptr + row % C)
    x = tl.load(x_ptr + row * L + offs, mask=offs < L, other=0.0)
    tl.store(out_ptr + row * L + offs, x * s, mask=offs < L)


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.register_buffer("scale", torch.rand(channels) + 0.5)  # the reference's draw, under a name of its own

    def forward(self, x):
        x = x.contiguous()
        B, C, L = x.shape
        out = torch.empty_like(x)
        scale_kernel[(B * C, triton.cdiv(L, 256))](x, self.scale, out, C, L, BLOCK=256)
        return out
