import torch
import torch.nn as nn


class Model(nn.Module):
    """Max over the last dimension of x scaled per channel by a learned scale."""

    def __init__(self, channels: int):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(x * self.scale[None, :, None], dim=-1)


batch_size = 8
channels = 16
length = 256


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [channels]
