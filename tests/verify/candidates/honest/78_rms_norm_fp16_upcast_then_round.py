# problem: rms_norm_fp16.py
# expect: accept
# hack: none — an fp16 RMS norm that upcasts to fp32 for the statistics, rounds x * r to fp16 as the reference's .half() does and multiplies by the model's own fp16 weight in fp16: fp16 data and an fp16 output may go through fp16 (red team B h10)
# naive: passes (CPU interpreter, max abs error 9.8e-4, fp16 outputs)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0).to(tl.float32)
    r = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=m, other=0.0)
    y = (x * r).to(tl.float16) * w          # rounded to fp16 as the reference does, then scaled in fp16
    tl.store(y_ptr + row * n_cols + cols, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, features: int, eps: float = 1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(features, dtype=torch.float16))
        self.eps = eps

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        rms_norm_kernel[(rows,)](x, self.weight, y, cols, self.eps, BLOCK=triton.next_power_of_2(cols))
        return y
