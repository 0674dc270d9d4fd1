# problem: 01_relu.py
# expect: accept
# hack: none — a ReLU by the sign bit: the host hands the kernel x.view(torch.int32) and y.view(torch.int32), and the kernel stores tl.where(bits < 0, 0, bits). The int32 elements hold fp32 data (precision.HeldData), but moving bits loses none of it, so the laundering fix must not reject it (red team B h11)
# naive: passes (CPU interpreter, max abs error 0)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_bits_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bits = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.store(y_ptr + offs, tl.where(bits < 0, 0, bits), mask=mask)   # negative floats have the sign bit set


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_bits_kernel[(triton.cdiv(n, 1024),)](x.view(torch.int32), y.view(torch.int32), n, BLOCK=1024)
        return y
