import torch
import torch.nn as nn


class Model(nn.Module):
    """An fp32 matrix product whose problem also carries an fp16 bias (added after the fp32 product)."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b) + bias.float()


M = 64
K = 128
N = 96


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N), torch.randn(N, dtype=torch.float16)]


def get_init_inputs():
    return []
