import torch
import torch.nn as nn


class Model(nn.Module):
    """Elementwise integer floor division a // b (torch.floor_divide)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.floor_divide(a, b)


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randint(0, 1000, (batch_size, dim)), torch.randint(1, 10, (batch_size, dim))]


def get_init_inputs():
    return []
