# problem: transpose.py
# expect: reject traced_torch_compute|no_kernel_output
# hack: the output is a contiguous clone of x.permute(1, 0); the kernel runs for real, but on a scratch buffer nobody returns
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
        scratch = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, scratch, x.numel(), BLOCK=1024)  # decoy: real work, thrown away
        return x.permute(1, 0).clone(memory_format=torch.contiguous_format)  # cheat
