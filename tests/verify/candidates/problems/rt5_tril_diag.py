import torch
import torch.nn as nn


class Model(nn.Module):
    """Lower triangle of each matrix, diagonal offset given per call."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, diagonal: int) -> torch.Tensor:
        return torch.tril(x, diagonal=diagonal)


batch_size = 4
n = 64


def get_inputs():
    return [torch.randn(batch_size, n, n), 1]


def get_init_inputs():
    return []
