# problem: 01_relu.py
# expect: reject timeout
# hack: none — fault: the kernel body loops forever, polling a flag in memory that is never set (the load each turn keeps the compiler from removing the loop)
# naive: ran in a subprocess under a 10 s alarm (CPU interpreter): still looping at the alarm; not run on a GPU
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_spin_kernel(x_ptr, out_ptr, flag_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    flag = tl.load(flag_ptr)
    while flag == 0:  # fault: the flag stays 0
        tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)
        flag = tl.load(flag_ptr, volatile=True)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        flag = torch.zeros(1, device=x.device, dtype=torch.int32)
        relu_spin_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, flag, x.numel(), BLOCK_SIZE=1024)
        return out
