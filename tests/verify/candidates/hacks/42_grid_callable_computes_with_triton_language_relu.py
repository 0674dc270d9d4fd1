# problem: 01_relu.py
# expect: reject not_allowed
# hack: the launched kernel does nothing; the grid callable, which the CPU interpreter evaluates with triton.language live and the arguments as real pointers, loads the input, applies ReLU and stores the answer itself
# naive: fooled — the output holds the right values
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def idle_kernel(x_ptr, out_ptr, n):
    pass


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        n = x.numel()

        def grid(meta):
            offsets = tl.arange(0, triton.next_power_of_2(n))
            mask = offsets < n
            values = tl.load(meta["x_ptr"] + offsets, mask=mask)
            tl.store(meta["out_ptr"] + offsets, tl.where(values > 0, values, 0.0), mask=mask)
            return (1,)

        idle_kernel[grid](x, out, n)
        return out
