import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies each channel of a (batch, channels, length) tensor by its own scale."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        return x * scale


batch_size = 8
channels = 16
length = 256


def get_inputs():
    return [torch.randn(batch_size, channels, length), torch.randn(channels, 1)]


def get_init_inputs():
    return []
