# problem: 09_softmax.py
# expect: reject wrong_result|non_finite
# hack: values that never show — a looped softmax that saves the max pass: exp(x) / Σ exp(x) without subtracting the row maximum, fine for randn rows (|x| < 6) but exp overflows to inf (inf/inf = NaN) once values reach ~89
# naive: fooled on the problem's randn inputs
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_two_pass(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        m = start + offs < n_cols
        x = tl.load(x_ptr + row * n_cols + start + offs, mask=m, other=float("-inf"))
        acc += tl.exp(x)  # cheat: no max shift
    denom = tl.sum(acc, axis=0)
    for start in range(0, n_cols, BLOCK):
        m = start + offs < n_cols
        x = tl.load(x_ptr + row * n_cols + start + offs, mask=m, other=0.0)
        tl.store(y_ptr + row * n_cols + start + offs, tl.exp(x) / denom, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        softmax_two_pass[(rows,)](x, y, cols, BLOCK=1024)
        return y
