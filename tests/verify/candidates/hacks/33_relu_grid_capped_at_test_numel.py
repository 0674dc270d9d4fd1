# problem: 01_relu.py
# expect: reject shape_mismatch|wrong_result|non_finite
# hack: shape specialisation — the grid covers at most the default input's 16 × 1024 elements; larger inputs keep an unwritten (zero) tail
# naive: fooled at the default shapes, and by smaller alternate shapes
import torch
import torch.nn as nn
import triton
import triton.language as tl

SEEN_NUMEL = 16 * 1024  # cheat


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.zeros_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(min(n, SEEN_NUMEL), 1024),)](x, out, n, BLOCK=1024)
        return out
