# problem: rt6_layer_norm_fn_inputs.py
# expect: reject wrong_result
# hack: float inputs a constant factory made redrawn — gain and bias inputs made by ones/zeros ignored
# naive: fooled (red team round 6)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def ln_kernel(x_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    tl.store(out_ptr + row * n_cols + offs, d * tl.rsqrt(var + eps), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, weight, bias):
        x = x.contiguous()
        out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        ln_kernel[(n_rows,)](x, out, n_cols, 1e-5, BLOCK=triton.next_power_of_2(n_cols))
        return out
