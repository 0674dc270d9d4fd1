import torch
import torch.nn as nn


class Model(nn.Module):
    """SiLU in double precision."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.sigmoid(x)


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim, dtype=torch.float64)]


def get_init_inputs():
    return []
