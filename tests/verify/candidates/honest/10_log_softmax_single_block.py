# problem: 10_log_softmax.py
# expect: accept
# hack: none — honest log-softmax, whole row in one power-of-two block, exp2/log2 arithmetic
# naive: passes (CPU interpreter and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=float("-inf"))
    shifted = x - tl.max(x, axis=0)
    LOG2E: tl.constexpr = 1.4426950408889634
    LN2: tl.constexpr = 0.6931471805599453
    lse = tl.log2(tl.sum(tl.exp2(shifted * LOG2E), axis=0)) * LN2
    tl.store(out_ptr + row * n_cols + cols, shifted - lse, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        log_softmax_kernel[(n_rows,)](x, out, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        return out
