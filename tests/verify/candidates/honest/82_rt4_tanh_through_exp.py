# problem: rt4_tanh_rand.py
# expect: accept
# tanh as sign(x)·(1 − e^(−2|x|)) / (1 + e^(−2|x|)): no overflow at any magnitude
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def elementwise_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    t = tl.exp(-2.0 * tl.abs(x))
    y = tl.where(x < 0, -1.0, 1.0) * (1.0 - t) / (1.0 + t)
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        elementwise_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
