# problem: 11_layer_norm.py
# expect: accept
# Its own parameter names (shift before scale, unlike nn.LayerNorm's weight and bias), each row normalised by one program.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, scale_ptr, shift_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n_cols
    x = tl.load(x_ptr + row * n_cols + offsets, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    centred = tl.where(mask, x - mean, 0.0)
    variance = tl.sum(centred * centred, axis=0) / n_cols
    scale = tl.load(scale_ptr + offsets, mask=mask)
    shift = tl.load(shift_ptr + offsets, mask=mask)
    y = centred / tl.sqrt(variance + eps) * scale + shift
    tl.store(out_ptr + row * n_cols + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.shift = nn.Parameter(torch.zeros(features))
        self.scale = nn.Parameter(torch.ones(features))
        self.eps = 1e-5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = self.scale.numel()
        flat = x.contiguous().view(-1, n_cols)
        out = torch.empty_like(flat)
        layer_norm_kernel[(flat.shape[0],)](
            flat, self.scale, self.shift, out, n_cols, self.eps, BLOCK=triton.next_power_of_2(n_cols)
        )
        return out.view(x.shape)
