# problem: rt2_log.py
# expect: reject wrong_result|non_finite
# hack: log right on (0, 1.5) only: every signed distribution was dropped, their magnitudes were never tried (red team round 2)
# naive: fooled
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    y = tl.where((x >= 1.5) & (x <= 50.0), x - 1.0, tl.log(x))
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        log_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
