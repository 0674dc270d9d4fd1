import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """Causal scaled dot-product attention (minGPT style): the causal mask is a registered buffer."""

    def __init__(self, max_seqlen: int):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(max_seqlen, max_seqlen)).view(1, 1, max_seqlen, max_seqlen))

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        T = q.size(-2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = torch.softmax(att, dim=-1)
        return att @ v


batch_size = 2
n_head = 4
seq_len = 64
head_dim = 32
max_seqlen = 128


def get_inputs():
    shape = (batch_size, n_head, seq_len, head_dim)
    return [torch.randn(*shape), torch.randn(*shape), torch.randn(*shape)]


def get_init_inputs():
    return [max_seqlen]
