# problem: 11_layer_norm.py
# expect: accept
# Parameters declared as random placeholders under gamma/beta names, beta first (the verifier matches them by meaning, not order).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def norm_kernel(x_ptr, gamma_ptr, beta_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n_cols
    x = tl.load(x_ptr + row * n_cols + offsets, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    centred = tl.where(mask, x - mean, 0.0)
    inv_std = 1.0 / tl.sqrt(tl.sum(centred * centred, axis=0) / n_cols + eps)
    gamma = tl.load(gamma_ptr + offsets, mask=mask)
    beta = tl.load(beta_ptr + offsets, mask=mask)
    tl.store(out_ptr + row * n_cols + offsets, centred * inv_std * gamma + beta, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.beta = nn.Parameter(torch.randn(features))
        self.gamma = nn.Parameter(torch.randn(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.contiguous().view(-1, self.gamma.numel())
        out = torch.empty_like(flat)
        norm_kernel[(flat.shape[0],)](flat, self.gamma, self.beta, out, flat.shape[1], 1e-5,
                                      BLOCK=triton.next_power_of_2(flat.shape[1]))
        return out.view(x.shape)
