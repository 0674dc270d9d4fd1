import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales each channel by a learned gain (initialised to 1, like LayerScale), then takes the maximum over the length."""

    def __init__(self, channels: int):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(channels, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(x * self.gain, dim=-1)


batch_size = 8
channels = 32
length = 512


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [channels]
