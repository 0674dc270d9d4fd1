import torch
import torch.nn as nn


class Model(nn.Module):
    """A residual-style adapter: a square linear layer initialised to the identity with zero bias, then ReLU."""

    def __init__(self, features: int):
        super().__init__()
        self.linear = nn.Linear(features, features)
        nn.init.eye_(self.linear.weight)
        nn.init.zeros_(self.linear.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


batch_size = 64
features = 128


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
