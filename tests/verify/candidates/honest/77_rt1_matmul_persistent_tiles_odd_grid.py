# problem: 13_matmul.py
# expect: accept
# honest: persistent matmul: 5 programs walk the output tiles (32 x 16, K in steps of 8) in a grouped
# order, fp32 IEEE dots.
# naive: fooled (red team round 1)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def persistent_mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, NPROG: tl.constexpr,
                         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    total = tiles_m * tiles_n
    for t in range(pid, total, NPROG):
        per_group = GROUP * tiles_n
        group = t // per_group
        first_m = group * GROUP
        rows_in_group = tl.minimum(tiles_m - first_m, GROUP)
        tm = first_m + (t % per_group) % rows_in_group
        tn = (t % per_group) // rows_in_group
        rm = tm * BM + tl.arange(0, BM)
        rn = tn * BN + tl.arange(0, BN)
        acc = tl.zeros([BM, BN], tl.float32)
        for k0 in range(0, K, BK):
            rk = k0 + tl.arange(0, BK)
            a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
            b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc = tl.dot(a, b, acc, input_precision="ieee")
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=A.dtype)
        persistent_mm_kernel[(5,)](A, B, C, M, N, K, NPROG=5, BM=32, BN=16, BK=8, GROUP=3)
        return C
