# problem: rt5_max_pool1d_literal.py
# expect: accept
# the window and stride read from the constructor (a runtime loop over the window), one program per 512 outputs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _pool(x_ptr, y_ptr, L, L_out, total, K, S, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    row = offs // L_out
    j = offs % L_out
    base = row * L + j * S
    acc = tl.full([BLOCK], float("-inf"), tl.float32)
    for k in range(0, K):
        acc = tl.maximum(acc, tl.load(x_ptr + base + k, mask=mask, other=float("-inf")))
    tl.store(y_ptr + offs, acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.k = kernel_size
        self.s = stride

    def forward(self, x):
        x = x.contiguous()
        B, C, L = x.shape
        L_out = (L - self.k) // self.s + 1
        y = torch.empty(B, C, L_out, device=x.device, dtype=x.dtype)
        total = y.numel()
        _pool[(triton.cdiv(total, 512),)](x, y, L, L_out, total, self.k, self.s, BLOCK=512)
        return y
