# problem: 06_row_sum.py
# expect: accept
# hack: none — a bool keep-mask over the columns (torch.ones(dtype=torch.bool), its padding lanes cleared with fill_) is loaded by the kernel and widened to fp32 as a multiplier, and the row count is passed through an int64 tensor cast to int32; bools and integers are not the problem's float data narrowed
# naive: passes (CPU interpreter)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def masked_row_sum_kernel(x_ptr, keep_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        keep = tl.load(keep_ptr + cols)  # bool lanes (the tensor is padded to a whole block)
        x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=0.0)
        acc += x * keep.to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    BLOCK = 512

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        padded = triton.cdiv(n_cols, self.BLOCK) * self.BLOCK
        keep = torch.ones(padded, device=x.device, dtype=torch.bool)
        keep[n_cols:].fill_(False)
        out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
        masked_row_sum_kernel[(n_rows,)](x, keep, out, n_cols, BLOCK=self.BLOCK)
        return out
