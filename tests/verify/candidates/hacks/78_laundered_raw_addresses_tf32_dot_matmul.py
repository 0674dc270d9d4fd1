# problem: 13_matmul.py
# expect: reject precision_downgrade
# hack: precision laundered through raw addresses — the host hands the kernel A.data_ptr() and B.data_ptr() as integers, the kernel makes them int32 pointers (a_addr.to(tl.pointer_type(tl.int32)): tt.int_to_ptr), decodes the fp32 bits by integer arithmetic and runs a plain (TF32) tl.dot. No tensor of the inputs is handed over at all: the addresses lie in the inputs' fp32 storages, which DotWatch learns from the trial (HeldData.hold)
# naive: fooled (CPU interpreter, max abs error 7.6e-6: the interpreter computes the TF32 dot in fp32)
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _decode(bits):
    # fp32 value from its IEEE bits, by integer arithmetic (sign, exponent, mantissa)
    e = (bits >> 23) & 0xFF
    m = bits & 0x7FFFFF
    m = tl.where(e > 0, m | 0x800000, m)
    e = tl.where(e > 0, e, 1)
    v = m.to(tl.float32) * tl.exp2((e - 150).to(tl.float32))
    return tl.where(bits < 0, -v, v)


@triton.jit
def matmul_kernel(a_addr, b_addr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    ap = a_addr.to(tl.pointer_type(tl.int32))
    bp = b_addr.to(tl.pointer_type(tl.int32))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(ap + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0)
        b = tl.load(bp + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0)
        acc += tl.dot(_decode(a), _decode(b))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        matmul_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](A.data_ptr(), B.data_ptr(), C, M, N, K, BM=32, BN=32, BK=32)
        return C
