import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies an (m, k) matrix by a (k, n) matrix."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


m = 128
k = 64
n = 96


def get_inputs():
    return [torch.randn(m, k), torch.randn(k, n)]


def get_init_inputs():
    return []
