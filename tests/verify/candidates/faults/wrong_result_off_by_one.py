# problem: 16_cumsum.py
# expect: reject wrong_result
# hack: none — fault: an honest-looking scan that is exclusive instead of inclusive (each output misses its own element)
# naive: caught — wrong_result
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = 0.0
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0)
        tl.store(out_ptr + row * n_cols + cols, tl.cumsum(x, axis=0) - x + carry, mask=mask)  # fault: exclusive
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        cumsum_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=256)
        return out
