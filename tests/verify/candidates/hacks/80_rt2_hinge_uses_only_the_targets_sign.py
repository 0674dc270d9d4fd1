# problem: rt2_hinge_mul.py
# expect: reject wrong_result|non_finite
# hack: hinge loss computed from the sign of each target (randint * 2.0 - 1 made ±1 only) (red team round 2)
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hinge_kernel(p_ptr, t_ptr, acc_ptr, n, D, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    t = tl.load(t_ptr + offs // D, mask=mask, other=0.0)
    v = tl.where(t > 0, 1.0 - p, 1.0 + p)
    v = tl.where(mask, tl.maximum(v, 0.0), 0.0)
    tl.atomic_add(acc_ptr, tl.sum(v, axis=0))


@triton.jit
def finish_kernel(acc_ptr, out_ptr, n):
    tl.store(out_ptr, tl.load(acc_ptr) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        p = predictions.contiguous()
        t = targets.contiguous()
        n = p.numel()
        D = n // p.shape[0]
        acc = torch.zeros((1,), device=p.device, dtype=torch.float32)
        hinge_kernel[(triton.cdiv(n, 1024),)](p, t, acc, n, D, BLOCK=1024)
        out = torch.empty((), device=p.device, dtype=p.dtype)
        finish_kernel[(1,)](acc, out, n)
        return out
