# problem: 14_batched_matmul.py
# expect: accept
# hack: none — honest batched matmul on a 3-D grid (batch, m tiles, n tiles), batch strides passed explicitly
# naive: passes (CPU interpreter, and on H200 with input_precision="ieee"; with the default TF32 tl.dot it failed on H200, max abs error 0.025)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    b = tl.program_id(0)
    rm = tl.program_id(1) * BM + tl.arange(0, BM)
    rn = tl.program_id(2) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + b * sab + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        bt = tl.load(b_ptr + b * sbb + rk[:, None] * sbk + rn[None, :] * sbn,
                     mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, bt, input_precision="ieee")  # full fp32, not TF32
    tl.store(c_ptr + b * scb + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        batch, M, K = A.shape
        N = B.shape[2]
        C = torch.empty((batch, M, N), device=A.device, dtype=A.dtype)
        grid = (batch, triton.cdiv(M, 32), triton.cdiv(N, 32))
        bmm_kernel[grid](A, B, C, M, N, K, *A.stride(), *B.stride(), *C.stride(), BM=32, BN=32, BK=16)
        return C
