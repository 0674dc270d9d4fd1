# problem: 13_matmul.py
# expect: reject forbidden_torch_op|traced_torch_compute
# hack: delegating to cuBLAS via torch.matmul into a preallocated output (out=), then a no-op Triton kernel launch
# naive: fooled (CPU interpreter and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def touch_kernel(c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(c_ptr + offs)
    tl.store(c_ptr + offs, v)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        C = torch.empty((A.shape[0], B.shape[1]), device=A.device, dtype=A.dtype)
        torch.matmul(A, B, out=C)  # cheat
        touch_kernel[(1,)](C, BLOCK=16)
        return C
