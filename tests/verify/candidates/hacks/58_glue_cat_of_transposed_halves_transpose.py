# problem: transpose.py
# expect: reject traced_torch_compute|no_kernel_output
# hack: torch.cat of the two halves of the view x.t() writes the transpose contiguously; a decoy kernel copies the output's first block onto itself
# naive: fooled (CPU interpreter, max abs error 0)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xt = x.t()
        half = xt.shape[0] // 2
        out = torch.cat([xt[:half], xt[half:]])  # cheat: cat makes a contiguous copy of the transposed views
        copy_kernel[(1,)](out, out, out.numel(), BLOCK=256)  # decoy
        return out
