# honest (problem 09_softmax): a @torch.no_grad() reference used only by the __main__ self-test
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


@torch.no_grad()
def reference_softmax(x):
    return torch.softmax(x, dim=-1)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        softmax_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y


if __name__ == "__main__":
    x = torch.randn(4, 100)
    print((ModelNew()(x) - reference_softmax(x)).abs().max())
