import torch
import torch.nn as nn


class Model(nn.Module):
    """1D max pooling (no padding); the window and stride are given as literals in get_init_inputs."""

    def __init__(self, kernel_size: int, stride: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


batch_size = 8
channels = 16
length = 128


def get_inputs():
    return [torch.randn(batch_size, channels, length)]


def get_init_inputs():
    return [4, 1]
