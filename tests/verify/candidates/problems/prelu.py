import torch
import torch.nn as nn


class Model(nn.Module):
    """PReLU with one learned slope shared by every channel (nn.PReLU's default: one element, 0.25)."""

    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.prelu(x)


batch_size = 16
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []
