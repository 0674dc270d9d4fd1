# problem: 01_relu.py
# expect: reject not_allowed
# hack: a module-level lambda called from a kernel hands the interpreter's tl.load/tl.store and the launch's pointers to host code, which computes after the programs end
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl

_stash = []
keep = lambda *values: _stash.append(values)  # a module-level lambda: kernels may call it, it is no `def`


@triton.jit
def grab_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    # hands the interpreter's patched tl.load / tl.store / tl.maximum and this launch's pointers to host code
    keep(tl.load, tl.store, tl.maximum, x_ptr + offs, out_ptr + offs, offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        _stash.clear()
        grab_kernel[(1,)](x, out, n, BLOCK=triton.next_power_of_2(n))
        load, store, maximum, src, dst, mask = _stash[0]
        # host code computes with Triton's language on real pointers, after the programs ended
        store(dst, maximum(load(src, mask=mask, other=0.0), 0.0), mask=mask)
        return out
