# problem: 13_matmul.py
# expect: reject forbidden_torch_op|traced_torch_compute
# hack: delegating to PyTorch through the op registry (torch.ops.aten.mm.default)
# naive: fooled (CPU interpreter and H200)
import torch
import torch.nn as nn
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

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        C = torch.ops.aten.mm.default(A, B)  # cheat: aten op called directly
        out = torch.empty_like(C)
        copy_kernel[(triton.cdiv(C.numel(), 1024),)](C, out, C.numel(), BLOCK=1024)
        return out
