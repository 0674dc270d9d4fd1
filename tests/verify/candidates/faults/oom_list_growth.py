# problem: 01_relu.py
# expect: reject out_of_memory|crashed|runtime_error|timeout
# hack: none — fault: forward grows a Python list of 256 MiB host buffers forever (touching every page), until the memory limit stops it (or the time limit: faulting in 8 GiB took 20-30 s of a 2-core CI machine, near the tests' 30 s limit)
# naive: not run (kills, crashes or exhausts the process); parses
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.maximum(tl.load(x_ptr + offsets, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hoard = []
        while True:  # fault: unbounded growth
            hoard.append(b"\x01" * (256 << 20))
            if len(hoard) < 0:
                break
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK_SIZE=1024)
        return out
