# (e): torch.nn.init.Tensor.<anything> is an allowed qualified name (torch.nn.init. prefix, reaches no module):
# PyTorch compute, host numpy and storage access through the unbound methods of torch.Tensor
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
        launch(x)
        a = torch.nn.init.Tensor.numpy(x)          # no aten op: invisible to the trace
        y = torch.nn.init.Tensor.relu(x)
        s = torch.nn.init.Tensor.untyped_storage(x)
        return torch.nn.init.Tensor.mul(y, 1.0)
