# problem: rt5_tril_diag.py
# expect: accept
# honest: tril with the diagonal the call passes, any sign, one program per row of each matrix
# naive: fooled (red team round 5)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _tril(x_ptr, y_ptr, n, diagonal, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    r = row % n
    cols = tl.arange(0, BLOCK)
    inside = cols < n
    x = tl.load(x_ptr + row * n + cols, mask=inside, other=0.0)
    tl.store(y_ptr + row * n + cols, tl.where(cols <= r + diagonal, x, 0.0), mask=inside)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, diagonal):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.shape[-1]
        _tril[(x.numel() // n,)](x, y, n, diagonal, BLOCK=triton.next_power_of_2(n))
        return y
