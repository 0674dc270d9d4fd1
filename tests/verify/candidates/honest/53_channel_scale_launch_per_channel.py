# problem: 05_channel_scale.py
# expect: accept
# one launch per (batch, channel) row, each handed scale[c] as a one-element tensor: many single-element views, none rebuilt from Python data
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_row_kernel(x_ptr, s_ptr, out_ptr, L, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    s = tl.load(s_ptr)
    for start in range(0, L, BLOCK):
        m = start + offs < L
        v = tl.load(x_ptr + start + offs, mask=m, other=0.0)
        tl.store(out_ptr + start + offs, v * s, mask=m)


class ModelNew(nn.Module):
    def forward(self, x, scale):
        x = x.contiguous()
        out = torch.empty_like(x)
        B, C, L = x.shape
        for b in range(B):
            for c in range(C):
                # one launch per (batch, channel) row; scale[c] is that channel's scale (a pointer to one element)
                scale_row_kernel[(1,)](x[b, c], scale[c], out[b, c], L, BLOCK=256)
        return out
