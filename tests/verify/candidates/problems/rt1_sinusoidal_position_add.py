import math

import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds the fixed sinusoidal positional encoding (Attention Is All You Need; the PyTorch tutorial registers
    the table as a buffer) to a batch of token embeddings."""

    def __init__(self, d_model: int, max_len: int):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pe[: x.size(1)]


batch_size = 8
seq_len = 128
d_model = 256
max_len = 512


def get_inputs():
    return [torch.randn(batch_size, seq_len, d_model)]


def get_init_inputs():
    return [d_model, max_len]
