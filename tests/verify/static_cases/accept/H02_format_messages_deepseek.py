# honest (problem 04_add_bias_broadcast): DeepSeek-style shape checks with str.format messages and extra_repr
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, b_ptr, out_ptr, n_rows, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask)
    b = tl.load(b_ptr + cols, mask=mask)
    tl.store(out_ptr + row * n_cols + cols, x + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def extra_repr(self):
        return "triton add_bias, block={}".format(1024)

    def forward(self, x, y):
        if x.shape[-1] != y.shape[0]:
            raise ValueError("bias has {} features, input has {}".format(y.shape[0], x.shape[-1]))
        x = x.contiguous()
        y = y.contiguous()
        n_rows, n_cols = x.shape
        out = torch.empty_like(x)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        add_bias_kernel[(n_rows,)](x, y, out, n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE)
        return out
