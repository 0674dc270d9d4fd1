# problem: rt5_gather_rows.py
# expect: accept
# honest: one program per picked row reads its index and copies that row (indices within the table, as drawn)
# naive: an index redrawn negative or past the table would be read out of bounds
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _gather(table_ptr, index_ptr, out_ptr, dim, BLOCK: tl.constexpr):
    pick = tl.program_id(0)
    row = tl.load(index_ptr + pick)
    cols = tl.arange(0, BLOCK)
    inside = cols < dim
    values = tl.load(table_ptr + row * dim + cols, mask=inside)
    tl.store(out_ptr + pick * dim + cols, values, mask=inside)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, table, index):
        table = table.contiguous()
        index = index.contiguous()
        dim = table.shape[1]
        out = torch.empty((index.numel(), dim), device=table.device, dtype=table.dtype)
        _gather[(index.numel(),)](table, index, out, dim, BLOCK=triton.next_power_of_2(dim))
        return out
