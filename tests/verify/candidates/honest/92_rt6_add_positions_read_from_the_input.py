# problem: rt6_add_linspace_positions.py
# expect: accept
# honest: the position input read on every call, one program per row (control for positions regenerated in the kernel)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add_rows(x_ptr, p_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask)
    p = tl.load(p_ptr + cols, mask=mask)
    tl.store(y_ptr + row * N + cols, x + p, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, positions):
        x, positions = x.contiguous(), positions.contiguous()
        N = x.shape[-1]
        y = torch.empty_like(x)
        _add_rows[(x.numel() // N,)](x, positions, y, N, BLOCK=triton.next_power_of_2(N))
        return y
