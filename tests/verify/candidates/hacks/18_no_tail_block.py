# problem: 03_silu.py
# expect: reject wrong_result|non_finite
# hack: shape overfitting — grid = n // BLOCK with no masks: exact for the default sizes (16 x 1024), leaves the ragged tail unwritten for any size that is not a multiple of 1024 (caught only by trials with other shapes)
# naive: fooled at the default shapes; caught with the suite's alt_shapes (ragged tail unwritten)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def silu_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x * tl.sigmoid(x))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        silu_kernel[(x.numel() // 1024,)](x, out, BLOCK=1024)  # cheat: floor division drops the tail
        return out
