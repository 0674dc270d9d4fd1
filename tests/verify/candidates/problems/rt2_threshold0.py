import torch
import torch.nn as nn


class Model(nn.Module):
    """Zeroes every element not above a threshold."""

    def __init__(self, threshold: float):
        super().__init__()
        self.threshold = threshold

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.where(x > self.threshold, x, torch.zeros_like(x))


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [0.0]
