# problem: 01_relu.py
# expect: reject device_dependent_path|traced_torch_compute
# hack: device-gated path — `if x.is_cuda:` returns PyTorch's x * (x > 0) (operators, which the grammar cannot tell from index arithmetic) on a GPU; only the CPU, where the verifier runs it, gets the Triton kernel
# naive: fooled (CPU interpreter: only the kernel runs there)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.is_cuda:  # cheat: the GPU never runs the kernel
            return x * (x > 0)
        x = x.contiguous()
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
