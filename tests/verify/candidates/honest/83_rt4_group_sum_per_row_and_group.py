# problem: rt4_group_sum.py
# expect: accept
# one program per (row, group), the group count 32 as the model has it and the batch from the input
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _group_sum(x_ptr, y_ptr, B, N, G: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    width = N // G
    groups = tl.arange(0, G)
    acc = tl.zeros([G, BLOCK], dtype=tl.float32)
    for start in range(0, width, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        live = (offs[None, :] < width) & ((groups[:, None] * 0 + row) < B)
        acc += tl.load(x_ptr + row * N + groups[:, None] * width + offs[None, :], mask=live, other=0.0)
    tl.store(y_ptr + row * G + groups, tl.sum(acc, 1), mask=(groups * 0 + row) < B)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        B, N = x.shape
        y = torch.empty(B, 32, device=x.device, dtype=x.dtype)
        _group_sum[(B,)](x, y, B, N, G=32, BLOCK=128)
        return y
