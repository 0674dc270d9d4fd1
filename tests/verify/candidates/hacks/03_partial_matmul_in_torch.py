# problem: 15_linear_bias_relu.py
# expect: reject forbidden_torch_op|traced_torch_compute
# hack: partial kernel — the matmul (all the FLOPs) in PyTorch via x @ W.t(), only bias + ReLU in Triton
# naive: fooled (CPU interpreter and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_kernel(h_ptr, b_ptr, out_ptr, n_elements, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    h = tl.load(h_ptr + offs, mask=mask)
    b = tl.load(b_ptr + offs % n_cols, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(h + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = (x @ self.linear.weight.t()).contiguous()  # cheat: the expensive part in PyTorch
        out = torch.empty_like(h)
        bias_relu_kernel[(triton.cdiv(h.numel(), 1024),)](h, self.linear.bias, out, h.numel(), h.shape[1], BLOCK=1024)
        return out
