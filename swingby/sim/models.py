"""Models trained on the SIM task: the authors' MLPs (Sec. 3, App. F.1) and the symmetric two-layer linear
model ``f(x) = U U^T x`` of Sec. 4.2; ``seed`` seeds the initialisation."""
from __future__ import annotations

import torch
from torch import nn

from swingby import _checks

__all__ = ["MLP", "SymmetricModel"]

ACTIVATIONS = ("linear", "relu")


def _check_input(x, d: int, dtype: torch.dtype) -> None:
    """A ValueError unless ``x`` is a ``dtype`` tensor of shape ``(..., d)``."""
    if not isinstance(x, torch.Tensor) or x.ndim == 0 or x.shape[-1] != d or x.dtype != dtype:
        got = f"{x.dtype} tensor of shape {tuple(x.shape)}" if isinstance(x, torch.Tensor) else type(x).__name__
        raise ValueError(f"x must be a {dtype} torch.Tensor of shape (..., d) with d = {d} (the model's "
                         f"dtype and dimension), got a {got}")


class MLP(nn.Module):
    """A multi-layer perceptron ``R^d -> R^d`` (the authors' models, App. F.1).

    Parameters
    ----------
    d, depth, width
        Input and output dimension; number of Linear layers (1: ``W x + b``); hidden width (default ``d``).
    activation, bias, init_scale, seed
        "linear" or "relu" between layers; a bias in every layer (the authors' code: yes); a factor on PyTorch's
        default initial weights and biases; its seed.
    """

    def __init__(self, d: int, depth: int = 1, width: int | None = None, *, activation: str = "linear",
                 bias: bool = True, init_scale: float = 1.0, seed: int = 0) -> None:
        super().__init__()
        d = _checks.positive_int("d", d)
        depth = _checks.positive_int("depth", depth)
        width = d if width is None else _checks.positive_int("width", width)
        self.activation = _checks.choice("activation", activation, ACTIVATIONS)
        bias = _checks.flag("bias", bias)
        init_scale = _checks.number("init_scale", init_scale, low=0)
        seed = _checks.seed("seed", seed)
        _checks.memory(8.0 * depth * (max(d, width) + 1) ** 2, f"an MLP with d = {d}, depth = {depth}, width = {width}")
        dims = [d] + [width] * (depth - 1) + [d]
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.layers = nn.ModuleList(nn.Linear(dims[k], dims[k + 1], bias=bias) for k in range(depth))
        with torch.no_grad():
            for p in self.parameters():
                p.mul_(init_scale)
        self.d, self.depth, self.width, self.bias = d, depth, width, bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``f(x)`` for inputs ``x`` of shape ``(..., d)``."""
        _check_input(x, self.d, self.layers[0].weight.dtype)
        for k, layer in enumerate(self.layers):
            x = layer(x)
            if self.activation == "relu" and k < len(self.layers) - 1:
                x = torch.relu(x)
        return x

    def jacobian(self) -> torch.Tensor:
        """The input-output Jacobian ``W`` (``d x d``, ``f(x) = W x + b``) of a linear MLP."""
        if self.activation != "linear":
            raise ValueError("jacobian() needs activation='linear'; a ReLU MLP has no single Jacobian")
        W = torch.eye(self.d)
        for layer in self.layers:
            W = layer.weight.detach() @ W
        return W


class SymmetricModel(nn.Module):
    """The symmetric two-layer linear model ``f(x) = U U^T x`` (Sec. 4.2).

    Parameters
    ----------
    d, d_prime
        Input dimension and inner width ``d' >= d`` (default ``d``).
    init, init_scale, seed
        Entries ``U[0,1) * init_scale`` ("uniform", the authors' Fig. 5 with 1/5) or ``N(0, init_scale^2)``
        ("gaussian", the ``tau`` of App. E.2); the seed.
    """

    def __init__(self, d: int, d_prime: int | None = None, *, init: str = "uniform", init_scale: float = 0.2,
                 seed: int = 0) -> None:
        super().__init__()
        d = _checks.positive_int("d", d)
        d_prime = d if d_prime is None else _checks.integer("d_prime", d_prime, low=d)
        _checks.choice("init", init, ("uniform", "gaussian"))
        init_scale = _checks.positive_float("init_scale", init_scale)
        _checks.memory(8.0 * d * d_prime, f"U of shape (d, d_prime) = ({d}, {d_prime})")
        gen = torch.Generator().manual_seed(_checks.seed("seed", seed))
        draw = torch.rand if init == "uniform" else torch.randn
        self.U = nn.Parameter(draw(d, d_prime, generator=gen) * init_scale)
        self.d, self.d_prime = d, d_prime

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``U U^T x`` for inputs ``x`` of shape ``(..., d)``."""
        _check_input(x, self.d, self.U.dtype)
        return (x @ self.U) @ self.U.T

    def jacobian(self) -> torch.Tensor:
        """``W = U U^T``."""
        U = self.U.detach()
        return U @ U.T
