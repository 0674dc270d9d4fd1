# problem: 06_row_sum.py
# expect: reject shape_mismatch|wrong_result
# hack: shape overfitting — the output length is hard-coded to the default batch_size (16); right for the default shapes, wrong shape for any other batch (caught only by trials with other shapes)
# naive: fooled at the default shapes; caught with the suite's alt_shapes (shape (16,) != (7,))
import torch
import torch.nn as nn
import triton
import triton.language as tl

BATCH = 16  # cheat: copied from the problem's constants


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        out = torch.zeros(BATCH, device=x.device, dtype=x.dtype)
        row_sum_kernel[(min(x.shape[0], BATCH),)](x, out, x.shape[1], BLOCK=1024)
        return out
