# honest (problem 09_softmax): Claude-style cached launch-config helper with functools.lru_cache
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(y_ptr + row * n_cols + cols, num / tl.sum(num, axis=0), mask=mask)


@functools.lru_cache(maxsize=None)
def _launch_config(n_cols: int):
    block = triton.next_power_of_2(n_cols)
    num_warps = 4 if block <= 2048 else 8
    return block, num_warps


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        block, num_warps = _launch_config(cols)
        softmax_kernel[(rows,)](x, y, cols, BLOCK=block, num_warps=num_warps)
        return y
