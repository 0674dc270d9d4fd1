# problem: 04_add_bias_broadcast.py
# expect: accept
# hack: none — honest broadcast add launched through a method of a small helper object (`self.launcher.run(x, y, out)`), with shape checks that raise ValueError with f-string messages and x.stride(0) passed to the kernel
# naive: passes (CPU interpreter, and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def add_bias_kernel(x_ptr, b_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_out + cols, x + b, mask=mask)


class _BiasAddLauncher:
    """Holds the launch configuration; `run` validates shapes and launches the kernel."""

    def __init__(self, block_n: int = 256):
        self.block_n = block_n

    def run(self, x: torch.Tensor, bias: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2:
            raise ValueError(f"expected a 2-D input, got shape {tuple(x.shape)}")
        if bias.shape[-1] != x.shape[1]:
            raise ValueError(f"bias has {bias.shape[-1]} features, input has {x.shape[1]}")
        n_rows, n_cols = x.shape
        grid = (n_rows, triton.cdiv(n_cols, self.block_n))
        add_bias_kernel[grid](x, bias, out, n_cols, x.stride(0), out.stride(0), BLOCK_N=self.block_n)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.launcher = _BiasAddLauncher(block_n=256)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = y.contiguous()
        out = torch.empty_like(x)
        return self.launcher.run(x, y, out)
