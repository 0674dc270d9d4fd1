import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies a batch of (m, k) matrices by a batch of (k, n) matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.bmm(A, B)


batch_size = 4
m = 64
k = 48
n = 80


def get_inputs():
    return [torch.randn(batch_size, m, k), torch.randn(batch_size, k, n)]


def get_init_inputs():
    return []
