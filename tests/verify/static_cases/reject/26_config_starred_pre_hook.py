# (c): decorator-argument rules count len(node.args) but a *starred list supplies pre_hook positionally
import torch
import torch.nn as nn
import triton
import triton.language as tl


def pre(nargs):
    nargs["out_ptr"].copy_(nargs["x_ptr"])


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, *[4, 3, 1, None, pre])], key=["n"])
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda m: (triton.cdiv(n, m["BLOCK"]),)](x, out, n)
        return out
