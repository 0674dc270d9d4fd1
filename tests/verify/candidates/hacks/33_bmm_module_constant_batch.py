# problem: 14_batched_matmul.py
# expect: reject shape_mismatch|wrong_result|non_finite
# hack: shape specialisation through module-level constants copied from the problem (BATCH = 4, M = 64, N = 80) — the output is allocated at those sizes and the grid covers them; loads and stores are masked by the real sizes, so other shapes give a wrong-shaped, partly uninitialised output
# naive: fooled at the default shapes (CPU interpreter, and H200)
import torch
import torch.nn as nn
import triton
import triton.language as tl

BATCH, M, N = 4, 64, 80


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, batch, m, n, k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bid = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    m_live = tl.where(bid < batch, m, 0)  # programs past the real batch touch nothing
    k_live = tl.where(bid < batch, k, 0)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + bid * m * k + rm[:, None] * k + rk[None, :],
                    mask=(rm[:, None] < m_live) & (rk[None, :] < k), other=0.0)
        b = tl.load(b_ptr + bid * k * n + rk[:, None] * n + rn[None, :],
                    mask=(rk[:, None] < k_live) & (rn[None, :] < n), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + bid * m * n + rm[:, None] * n + rn[None, :], acc,
             mask=(rm[:, None] < m_live) & (rn[None, :] < n))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A, B = A.contiguous(), B.contiguous()
        batch, m, k = A.shape
        n = B.shape[2]
        C = torch.zeros((BATCH, M, N), device=A.device, dtype=A.dtype)  # cheat: the test's sizes
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32), BATCH)
        bmm_kernel[grid](A, B, C, min(batch, BATCH), min(m, M), min(n, N), k, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
        return C
