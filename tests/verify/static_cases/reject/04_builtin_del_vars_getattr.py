# (b): `getattr = 0; del getattr` (and vars): after the del the builtin is back, the checker still sees a local
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

getattr = vars = 0
del getattr, vars


class ModelNew(nn.Module):
    def forward(self, x):
        tg = getattr(x, "__class__")                          # torch.Tensor
        methods = vars(tg)                                    # reflection on the class dict
        os_ = getattr(getattr(launch, "__globals__")["torch"], "os")
        home = os_.environ.get("HOME")
        return launch(x)
