# problem: 01_relu.py
# expect: reject runtime_error
# hack: a host object passed as a kernel argument; the kernel hands its loaded data to the object's method
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, sink, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    sink.store(tl.load(x_ptr + offs, mask=offs < n, other=0.0))


class Sink:
    def __init__(self):
        self.blocks = []

    def store(self, v):
        self.blocks.append(v)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        sink = Sink()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, sink, BLOCK=1024)
        # nothing stored by the kernel; the host got the data as objects
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=offs < n)
