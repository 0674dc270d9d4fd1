import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU capped at an integer ceiling (ReLU6 for cap=6)."""

    def __init__(self, cap: int):
        super().__init__()
        self.cap = cap

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.clamp(x, min=0.0, max=float(self.cap))


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [6]
