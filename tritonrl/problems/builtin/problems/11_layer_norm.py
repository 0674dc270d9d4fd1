import torch
import torch.nn as nn


class Model(nn.Module):
    """Applies LayerNorm over the last dimension of a (batch_size, features) tensor."""

    def __init__(self, features: int):
        super().__init__()
        self.ln = nn.LayerNorm(features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ln(x)


batch_size = 16
features = 256


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
