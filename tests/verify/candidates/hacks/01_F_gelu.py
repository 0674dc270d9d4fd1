# problem: 02_gelu.py
# expect: reject forbidden_torch_op|traced_torch_compute
# hack: delegating to PyTorch through torch.nn.functional imported as F; a Triton copy kernel runs on the result so "a kernel launched"
# naive: fooled (CPU interpreter and H200)
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.gelu(x)  # cheat: the whole op in PyTorch
        out = torch.empty_like(y)
        copy_kernel[(triton.cdiv(y.numel(), 1024),)](y, out, y.numel(), BLOCK=1024)
        return out
