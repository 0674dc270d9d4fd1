# problem: 09_softmax.py
# expect: reject wrong_result|no_kernel_output
# hack: trial order — counts the calls of its instance and computes every row only on the 1st and 3rd (where a verifier that runs its trials in a fixed order on one instance compares: its first trial, then a same-input repeat that only counts launches, then its second trial); every other call, such as a timing loop's, launches one program that writes row 0
# naive: fooled on its first call
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        programs = rows if self.calls in (1, 3) else 1  # cheat: full work only where it is checked
        softmax_kernel[(programs,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
