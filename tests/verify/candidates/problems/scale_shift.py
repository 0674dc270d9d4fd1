import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies by a scale factor given to the constructor, then raises to a power given to forward."""

    def __init__(self, scale_factor: float):
        super().__init__()
        self.scale_factor = scale_factor

    def forward(self, x: torch.Tensor, exponent: int) -> torch.Tensor:
        return (x * self.scale_factor) ** exponent


batch_size = 16
dim = 4096
scale_factor = 2.0
exponent = 2


def get_inputs():
    return [torch.randn(batch_size, dim), exponent]


def get_init_inputs():
    return [scale_factor]
