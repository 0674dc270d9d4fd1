import torch
import torch.nn as nn


class Model(nn.Module):
    """Assigns each value to one of 16 equal-width bins over [-4, 4) (values outside go to the end bins)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.floor((x.clamp(-4.0, 3.999) + 4.0) * 2.0).to(torch.int64)


batch_size = 32
dim = 1000


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
