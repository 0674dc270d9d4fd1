import torch
import torch.nn as nn


class Model(nn.Module):
    """Scales each feature of fp32 activations by a per-feature gain stored in half precision."""

    def __init__(self, features: int):
        super().__init__()
        self.gain = nn.Parameter(torch.randn(features, dtype=torch.float16))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.gain.float()


batch_size = 64
features = 1024


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
