# problem: prelu.py
# expect: reject wrong_result
# hack: weights that never change — nn.PReLU's slope is always built as 0.25, so the kernel hard-codes 0.25 and never reads the parameter (kept registered so the module looks complete)
# naive: fooled — the reference's slope is the built 0.25 unless the verifier redraws it
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def prelu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.where(x >= 0, x, 0.25 * x), mask=mask)  # cheat: the built slope


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        prelu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK_SIZE=1024)
        return out
