import torch
import torch.nn as nn


class Model(nn.Module):
    """A small classifier head: linear layer with few outputs."""

    def __init__(self, in_features: int, num_classes: int):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


batch_size = 64
in_features = 20
num_classes = 5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, num_classes]
