import torch
import torch.nn as nn


class Model(nn.Module):
    """LayerNorm, ReLU, LayerNorm over the last dimension."""

    def __init__(self, features: int):
        super().__init__()
        self.ln1 = nn.LayerNorm(features)
        self.ln2 = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln2(torch.relu(self.ln1(x)))


batch_size = 16
features = 256


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
