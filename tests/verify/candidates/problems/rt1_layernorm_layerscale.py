import torch
import torch.nn as nn


class Model(nn.Module):
    """LayerNorm followed by a learned per-feature LayerScale gain (initialised to ones, as in CaiT/ConvNeXt)."""

    def __init__(self, features: int):
        super().__init__()
        self.norm = nn.LayerNorm(features)
        self.gamma = nn.Parameter(torch.ones(features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x) * self.gamma


batch_size = 32
features = 512


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
