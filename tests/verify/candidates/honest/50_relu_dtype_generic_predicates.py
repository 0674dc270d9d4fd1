# problem: 01_relu.py
# expect: accept
# a kernel generic over its element type (dtype.is_fp64() and the like)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    if x_ptr.dtype.element_ty.is_fp64():
        y = tl.maximum(x, 0.0)
    else:
        y = tl.maximum(x.to(tl.float32), 0.0).to(x_ptr.dtype.element_ty)
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
