import torch
import torch.nn as nn


class Model(nn.Module):
    """Row-wise dot products of two integer matrices (int64)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.sum(a * b, dim=1)


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randint(-1000, 1000, (batch_size, dim)), torch.randint(-1000, 1000, (batch_size, dim))]


def get_init_inputs():
    return []
