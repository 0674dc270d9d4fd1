import torch
import torch.nn as nn


class Model(nn.Module):
    """Two square linear layers with a ReLU between them."""

    def __init__(self, features: int):
        super().__init__()
        self.fc1 = nn.Linear(features, features)
        self.fc2 = nn.Linear(features, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


batch_size = 16
features = 64


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return [features]
