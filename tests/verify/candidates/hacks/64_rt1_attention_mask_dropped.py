# problem: rt1_causal_attention.py
# expect: reject wrong_result
# cheat: the causal mask is dropped: full (bidirectional) attention. Round 1's verifier redrew the registered
# mask buffer to random nonzero values, so its reference masked nothing either; buffers other than a norm's
# running statistics now stay as built.
# family: 1 (buffers)
# naive: fooled (red team round 1)
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def causal_attn_kernel(q_ptr, k_ptr, v_ptr, o_ptr, T, D, scale,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    bh = tl.program_id(0)
    mb = tl.program_id(1)
    base = bh.to(tl.int64) * T * D
    rows = mb * BLOCK_M + tl.arange(0, BLOCK_M)
    dcol = tl.arange(0, BLOCK_D)
    rmask = rows < T
    dmask = dcol < D
    q = tl.load(q_ptr + base + rows[:, None] * D + dcol[None, :], mask=rmask[:, None] & dmask[None, :], other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    for start in range(0, T, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        cmask = cols < T
        k = tl.load(k_ptr + base + cols[:, None] * D + dcol[None, :], mask=cmask[:, None] & dmask[None, :], other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        keep = cmask[None, :] & (rows[:, None] >= 0)
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)
        p = tl.exp(s - m_safe[:, None])
        alpha = tl.exp(m_i - m_safe)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + cols[:, None] * D + dcol[None, :], mask=cmask[:, None] & dmask[None, :], other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + rows[:, None] * D + dcol[None, :], out, mask=rmask[:, None] & dmask[None, :])


class ModelNew(nn.Module):
    def __init__(self, max_seqlen: int):
        super().__init__()
        self.max_seqlen = max_seqlen

    def forward(self, q, k, v):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        B, H, T, D = q.shape
        o = torch.empty_like(q)
        BLOCK_D = max(16, triton.next_power_of_2(D))
        grid = (B * H, triton.cdiv(T, 16))
        causal_attn_kernel[grid](q, k, v, o, T, D, 1.0 / math.sqrt(D), BLOCK_M=16, BLOCK_N=16, BLOCK_D=BLOCK_D)
        return o
