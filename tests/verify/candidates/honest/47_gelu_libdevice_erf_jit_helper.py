# problem: 02_gelu.py
# expect: accept
# GELU through libdevice (which Triton's CPU interpreter lacks; the verifier's child supplies it), in a @triton.jit helper.
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _gelu(x):
    return 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, _gelu(x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.contiguous().view(-1)
        out = torch.empty_like(flat)
        n = flat.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](flat, out, n, BLOCK=1024)
        return out.view(x.shape)
