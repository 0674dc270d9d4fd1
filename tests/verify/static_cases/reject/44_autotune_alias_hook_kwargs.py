# (c): decorator-keyword rules look at the qualified name of the called function: `at = triton.autotune` (an allowed value)
# then at(..., pre_hook=..., prune_configs_by=...)(fn) is never checked
import torch
import torch.nn as nn
import triton
import triton.language as tl

at = triton.autotune


def pre(nargs, **kw):
    nargs["out_ptr"].copy_(nargs["x_ptr"])


def prune(configs, nargs, **kw):
    return configs


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


tuned = at(configs=[triton.Config({"BLOCK": 1024})], key=["n"], pre_hook=pre,
           prune_configs_by={"early_config_prune": prune})(relu_kernel)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        tuned[lambda m: (triton.cdiv(n, m["BLOCK"]),)](x, out, n)
        return out
