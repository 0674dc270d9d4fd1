# problem: 09_softmax.py
# expect: reject wrong_result|no_kernel_output|non_finite
# hack: shape specialisation — one program per row, but the grid is capped at 20 programs ("plenty for the batch of 16"); rows past the 20th are never written. The cap is above the primary batch (16) and above the 17 or 19 rows of the every-size-moved trial
# naive: fooled at the problem's shapes and at any batch up to 20
import torch
import torch.nn as nn
import triton
import triton.language as tl

MAX_PROGRAMS = 20  # cheat


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.zeros_like(x)
        softmax_kernel[(min(rows, MAX_PROGRAMS),)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
