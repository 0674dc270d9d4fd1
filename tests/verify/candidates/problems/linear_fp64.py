import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer in double precision."""

    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, dtype=torch.float64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear(x)


batch_size = 32
in_features = 128
out_features = 96


def get_inputs():
    return [torch.randn(batch_size, in_features, dtype=torch.float64)]


def get_init_inputs():
    return [in_features, out_features]
