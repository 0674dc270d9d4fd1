# problem: 11_layer_norm.py
# expect: accept
# hack: none — a LayerNorm autograd.Function: forward in Triton, its backward's weight and bias gradients summed with torch (backward never runs in a forward call)
# naive: passes
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ln_fwd(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs, mask=mask)
    tl.store(y_ptr + row * n_cols + offs, xc * rstd * w + b, mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


@triton.jit
def ln_bwd_dx(x_ptr, w_ptr, dy_ptr, mean_ptr, rstd_ptr, dx_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    dy = tl.load(dy_ptr + row * n_cols + offs, mask=mask, other=0.0)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(rstd_ptr + row)
    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    g = dy * w
    c1 = tl.sum(xhat * g, axis=0) / n_cols
    c2 = tl.sum(g, axis=0) / n_cols
    tl.store(dx_ptr + row * n_cols + offs, (g - xhat * c1 - c2) * rstd, mask=mask)


class _LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        x = x.contiguous()
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        mean = torch.empty(n_rows, device=x.device, dtype=torch.float32)
        rstd = torch.empty(n_rows, device=x.device, dtype=torch.float32)
        ln_fwd[(n_rows,)](x, weight, bias, y, mean, rstd, n_cols, eps, BLOCK=triton.next_power_of_2(n_cols))
        ctx.save_for_backward(x, weight, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        dy = dy.contiguous()
        dx = torch.empty_like(x)
        n_rows, n_cols = x.shape
        ln_bwd_dx[(n_rows,)](x, weight, dy, mean, rstd, dx, n_cols, BLOCK=triton.next_power_of_2(n_cols))
        xhat = (x - mean[:, None]) * rstd[:, None]
        return dx, (dy * xhat).sum(0), dy.sum(0), None


class ModelNew(nn.Module):
    def __init__(self, features: int):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return _LayerNorm.apply(x, self.ln.weight, self.ln.bias, self.ln.eps)
