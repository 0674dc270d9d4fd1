# honest (problem 01_relu): module constants read by the kernel in the forms models write: triton.language.constexpr, float('-inf'), int(), tuple unpacking, if/else branches, triton.next_power_of_2, constexpr(value=), a __main__ rebinding
import torch
import torch.nn as nn
import triton
import triton.language as tl

ZERO = triton.language.constexpr(0.0)
NEG_INF = tl.constexpr(float("-inf"))
WIDTH = int(1024.0)
LOW, HIGH = tl.constexpr(0.0), tl.constexpr(1e30)
if WIDTH > 512:
    BLOCK = triton.next_power_of_2(WIDTH)
else:
    BLOCK = 512
ONE = tl.constexpr(value=1.0)


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=NEG_INF)
    y = tl.minimum(tl.maximum(x, ZERO), HIGH) * ONE + LOW
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, B=BLOCK)
        return out


if __name__ == "__main__":
    BLOCK = 256
    print(ModelNew()(torch.randn(1000)).shape)
