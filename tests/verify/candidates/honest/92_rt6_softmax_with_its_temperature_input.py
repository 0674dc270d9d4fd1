# problem: rt6_softmax_temperature_full.py
# expect: accept
# honest: each row divided by its own temperature from the input, then a max-shifted softmax (control for the
# temperature hard-coded)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _softmax_t(x_ptr, t_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    t = tl.load(t_ptr + row)
    z = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0) / t
    z = tl.where(mask, z, float("-inf"))
    e = tl.exp(z - tl.max(z, 0))
    tl.store(y_ptr + row * N + cols, e / tl.sum(e, 0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, temperature):
        x, temperature = x.contiguous(), temperature.contiguous()
        N = x.shape[-1]
        y = torch.empty_like(x)
        _softmax_t[(x.numel() // N,)](x, temperature, y, N, BLOCK=triton.next_power_of_2(N))
        return y
