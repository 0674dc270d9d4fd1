# (d): Base = list / typing.NamedTuple(...) / typing.defaultdict: container subclasses returned as outputs
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

import typing

L = list
Pair = typing.NamedTuple("Pair", [("a", int), ("b", int)])


class Outs(L):
    def count(self, v):
        return 0


class P2(Pair):
    def index(self, v):
        return 0


class ModelNew(nn.Module):
    def forward(self, x):
        y = launch(x)
        return Outs([y]) if x.dim() > 5 else P2(y, y)
