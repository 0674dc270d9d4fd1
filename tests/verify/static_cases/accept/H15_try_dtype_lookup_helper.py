# honest (problem 10_log_softmax): dtype-map lookup through a helper inside try/except KeyError (no kernel in the try)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    lse = tl.log(tl.sum(tl.exp(x), axis=0))
    tl.store(y_ptr + row * n_cols + cols, x - lse, mask=mask)


_SUPPORTED = {torch.float32: 4, torch.float16: 2, torch.bfloat16: 2}


def bytes_per_element(dtype):
    return _SUPPORTED[dtype]


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            nbytes = bytes_per_element(x.dtype)
        except KeyError:
            raise TypeError(f"unsupported dtype {x.dtype}") from None
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        log_softmax_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols), num_warps=4 if nbytes == 4 else 2)
        return y
