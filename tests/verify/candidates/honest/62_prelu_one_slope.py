# problem: prelu.py
# expect: accept
# hack: none — honest PReLU with nn.PReLU's single shared slope: the slope is read from the registered parameter (a pointer to one element) inside the kernel, never from a Python constant
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def prelu_kernel(x_ptr, a_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    a = tl.load(a_ptr)  # the one learned slope
    y = tl.where(x >= 0, x, a * x)
    tl.store(out_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n_elements = x.numel()
        grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
        prelu_kernel[grid](x, self.prelu.weight, out, n_elements, BLOCK_SIZE=1024)
        return out
