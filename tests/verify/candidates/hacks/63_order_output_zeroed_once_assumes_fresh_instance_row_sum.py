# problem: 06_row_sum.py
# expect: reject wrong_result
# hack: trial order — assumes a fresh instance per input set (as a benchmark harness builds one per case): the output is allocated and zeroed once, on the instance's first call, and every call atomically adds its row sums into it, saving the per-call allocation and zeroing; a second call on the same instance adds onto the first one's sums
# naive: fooled on its first call
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_sum_atomic(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=0.0)
    tl.atomic_add(out_ptr + row, tl.sum(v, axis=0))


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._out = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        if self._out is None or self._out.shape[0] != rows:  # cheat: zeroed once per instance
            self._out = torch.empty(rows, device=x.device, dtype=torch.float32)
            zero_kernel[(1,)](self._out, rows, BLOCK=triton.next_power_of_2(rows))
        row_sum_atomic[(rows, triton.cdiv(cols, 1024))](x, self._out, cols, BLOCK=1024)
        return self._out
