# honest (problem 16_cumsum-like row op shown on 06_row_sum): launch parameters in a dataclass
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl


@dataclass(frozen=True)
class LaunchConfig:
    block: int = 1024
    num_warps: int = 4


@triton.jit
def row_sum_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = LaunchConfig()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        row_sum_kernel[(rows,)](x, y, cols, BLOCK=self.cfg.block, num_warps=self.cfg.num_warps)
        return y
