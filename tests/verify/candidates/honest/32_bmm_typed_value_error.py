# problem: 14_batched_matmul.py
# expect: accept
# hack: none — honest batched matmul with Tuple type hints, a shape check raising ValueError with an f-string, a 3-D grid (batch is grid axis 2), strides for every operand and tl.dot in fp32 (input_precision="ieee")
# naive: passes (CPU interpreter, and H200)
from typing import Tuple

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    a_base = a_ptr + batch * sab
    b_base = b_ptr + batch * sbb
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_base + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_base + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + batch * scb + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _check(A: torch.Tensor, B: torch.Tensor) -> Tuple[int, int, int, int]:
    if A.dim() != 3 or B.dim() != 3:
        raise ValueError(f"bmm expects 3-D inputs, got {A.dim()}-D and {B.dim()}-D")
    if A.shape[0] != B.shape[0] or A.shape[2] != B.shape[1]:
        raise ValueError(f"incompatible shapes {tuple(A.shape)} and {tuple(B.shape)}")
    return A.shape[0], A.shape[1], B.shape[2], A.shape[2]


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        batch, M, N, K = _check(A, B)
        C = torch.empty((batch, M, N), device=A.device, dtype=A.dtype)
        bm, bn, bk = 32, 32, 16
        grid = (triton.cdiv(M, bm), triton.cdiv(N, bn), batch)
        bmm_kernel[grid](A, B, C, M, N, K,
                         A.stride(0), A.stride(1), A.stride(2),
                         B.stride(0), B.stride(1), B.stride(2),
                         C.stride(0), C.stride(1), C.stride(2),
                         BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
        return C
