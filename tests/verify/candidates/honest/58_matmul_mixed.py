# problem: matmul_mixed.py
# expect: accept
# hack: none — honest mixed-precision answer: the fp32 matrices go through an IEEE fp32 tl.dot, and the fp16 bias (the problem's own fp16 input) is loaded as fp16 and widened to fp32 before the add; fp16 data read as fp16 is no downgrade
# naive: passes (CPU interpreter)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def matmul_bias_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)  # fp16 input, widened
    acc += bias[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        a, b, bias = a.contiguous(), b.contiguous(), bias.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=torch.float32)
        matmul_bias_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](a, b, bias, c, M, N, K, BM=32, BN=32, BK=32)
        return c
