# honest (problem 01_relu): tl.constexpr(torch.finfo(torch.float32).max) read by the kernel
import torch
import torch.nn as nn
import triton
import triton.language as tl
FMAX = tl.constexpr(torch.finfo(torch.float32).max)
@triton.jit
def k(x, o):
    tl.store(o, tl.minimum(tl.load(x), FMAX))
class ModelNew(nn.Module):
    def forward(self, x):
        o = torch.empty_like(x)
        k[(1,)](x, o)
        return o
