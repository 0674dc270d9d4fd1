import torch
import torch.nn as nn


class Model(nn.Module):
    """GELU scaled by a gain passed as a 0-d tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x) * alpha


batch_size = 16
dim = 1024


def get_inputs():
    return [torch.randn(batch_size, dim), torch.tensor(0.5)]


def get_init_inputs():
    return []
