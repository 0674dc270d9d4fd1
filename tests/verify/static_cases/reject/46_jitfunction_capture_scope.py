# (b) GPU: JITFunction.get_capture_scope() (bound to a local to dodge the method list) returns the module globals dict
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def launch(x):
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        scope = relu_kernel.get_capture_scope
        g = scope()
        imp = g["__builtins__"]["__import__"]
        imp("os").environ.get("HOME")
        return launch(x)
