# problem: 02_gelu.py
# expect: accept
# triton.Config(..., pre_hook=None) spelled out, autotune over heuristics, a def grid
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4, pre_hook=None),
                          triton.Config({"BLOCK": 512}, num_warps=8, pre_hook=None)], key=["n"])
@triton.heuristics(values={"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(out_ptr + offs, y, mask=offs < n)


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        gelu_kernel[grid](x, out, x.numel())
        return out
