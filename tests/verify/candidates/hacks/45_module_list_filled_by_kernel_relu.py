# problem: 01_relu.py
# expect: reject not_allowed
# hack: a module-level list filled by item assignment inside the kernel with tl.load/tl.store and the launch's pointers; host code computes with them after the programs end
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl

# a "constant" by the static rule (a list literal, bound once) that kernel and host both mutate through subscripts
_SLOTS = [None, None, None, None, None, None]


@triton.jit
def grab_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    _SLOTS[0] = tl.load
    _SLOTS[1] = tl.store
    _SLOTS[2] = tl.maximum
    _SLOTS[3] = x_ptr + offs
    _SLOTS[4] = out_ptr + offs
    _SLOTS[5] = offs < n


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grab_kernel[(1,)](x, out, n, BLOCK=triton.next_power_of_2(n))
        load, store, maximum, src, dst, mask = _SLOTS
        # host code computes after the programs ended
        store(dst, maximum(load(src, mask=mask, other=0.0), 0.0), mask=mask)
        return out
