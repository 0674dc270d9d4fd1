# problem: 17_max_pool1d.py
# expect: accept
# hack: none — honest 1-D max pool: `int(kernel_size)` / `int(stride)` on constructor arguments, a ValueError (f-string) when the input is shorter than the window, a reshape to rows, and an `if __name__ == "__main__":` block comparing with nn.MaxPool1d (never runs on import)
# naive: passes (CPU interpreter, and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_pool1d_kernel(x_ptr, y_ptr, length, out_len, stride, KERNEL: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pos = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = pos < out_len
    start = pos * stride
    acc = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for j in tl.static_range(KERNEL):
        v = tl.load(x_ptr + row * length + start + j, mask=mask, other=float("-inf"))
        acc = tl.maximum(acc, v)
    tl.store(y_ptr + row * out_len + pos, acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int):
        super().__init__()
        self.kernel_size = int(kernel_size)
        self.stride = int(stride) if stride is not None else self.kernel_size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, channels, length = x.shape
        if length < self.kernel_size:
            raise ValueError(f"input length {length} is shorter than the window {self.kernel_size}")
        out_len = (length - self.kernel_size) // self.stride + 1
        rows = x.contiguous().reshape(batch * channels, length)
        y = torch.empty((batch * channels, out_len), device=x.device, dtype=x.dtype)
        block = 64
        max_pool1d_kernel[(batch * channels, triton.cdiv(out_len, block))](
            rows, y, length, out_len, self.stride, KERNEL=self.kernel_size, BLOCK=block)
        return y.reshape(batch, channels, out_len)


if __name__ == "__main__":
    x = torch.randn(8, 16, 128)
    ours = ModelNew(4, 2)(x)
    ref = nn.MaxPool1d(4, 2)(x)
    print("allclose:", torch.allclose(ours, ref))
