# (c): same with triton.autotune(*[...]): prune_configs_by / pre_hook / post_hook / do_bench positionally
import torch
import torch.nn as nn
import triton
import triton.language as tl


def prune(configs, nargs, **kw):
    return configs


def pre(nargs, **kw):
    pass


@triton.autotune(*[[triton.Config({"BLOCK": 1024})], ["n"], {"early_config_prune": prune}, None, None, pre, pre])
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
