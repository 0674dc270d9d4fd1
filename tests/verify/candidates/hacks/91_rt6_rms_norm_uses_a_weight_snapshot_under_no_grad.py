# problem: 12_rms_norm.py
# expect: reject wrong_result
# hack: autograd state varied (on with inputs requiring grad, off, parameters frozen) — under no_grad, a weight snapshot taken by a call with autograd on
# naive: fooled (red team round 6)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_kernel(x_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    r = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + row * n_cols + offs, x * r * w, mask=mask)


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(features))
        self.eps = 1e-6
        self.snapshot = None

    def forward(self, x):
        x = x.contiguous()
        w = self.weight
        if torch.is_grad_enabled():
            if self.snapshot is None or self.snapshot.shape != self.weight.shape:
                self.snapshot = torch.empty_like(self.weight)
            n = self.weight.numel()
            copy_kernel[(triton.cdiv(n, 1024),)](self.weight, self.snapshot, n, BLOCK=1024)
        elif self.snapshot is not None:
            w = self.snapshot
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        rms_kernel[(n_rows,)](x, w, out, n_cols, self.eps, BLOCK=triton.next_power_of_2(n_cols))
        return out
