import torch
import torch.nn as nn


class Model(nn.Module):
    """Symmetric int8 fake quantisation: round to int8 levels of a fixed scale, then back to float."""

    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q = torch.clamp(torch.round(x / self.scale), -128, 127).to(torch.int8)
        return q.float() * self.scale


batch_size = 32
dim = 1024
scale = 0.05


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return [scale]
