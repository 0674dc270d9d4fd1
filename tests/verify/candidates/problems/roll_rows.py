import torch
import torch.nn as nn


class Model(nn.Module):
    """Circularly shifts each row right by `shift` positions."""

    def __init__(self, shift: int):
        super().__init__()
        self.shift = shift

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.roll(x, shifts=self.shift, dims=1)


batch_size = 64
dim = 1000
shift = 37


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [shift]
