# problem: 01_relu.py
# expect: reject cuda_error|crashed|runtime_error
# hack: none — fault: the kernel stores 2**40 elements past the output (an illegal address on a GPU, a wild write under the CPU interpreter)
# naive: not run (kills, crashes or exhausts the process); parses
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, far, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + far + offsets, tl.maximum(x, 0.0), mask=mask)  # fault: far out of bounds


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), 2**40, BLOCK_SIZE=1024)
        return out
