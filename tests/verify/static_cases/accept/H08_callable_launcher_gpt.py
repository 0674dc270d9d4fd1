# honest (problem 02_gelu): GPT-style callable launcher object (__call__ / __repr__)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=mask)


class GeluLauncher:
    def __init__(self, block=1024):
        self.block = block

    def __call__(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, self.block),)](x, y, n, BLOCK=self.block)
        return y

    def __repr__(self):
        return f"GeluLauncher(block={self.block})"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.gelu = GeluLauncher()

    def forward(self, x):
        return self.gelu(x)
