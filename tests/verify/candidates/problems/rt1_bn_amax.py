import torch
import torch.nn as nn


class Model(nn.Module):
    """BatchNorm2d (inference statistics) followed by a global max pool over the spatial dimensions."""

    def __init__(self, num_features: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amax(self.bn(x), dim=(2, 3))


batch_size = 8
features = 16
height = 32
width = 32


def get_inputs():
    return [torch.randn(batch_size, features, height, width)]


def get_init_inputs():
    return [features]
