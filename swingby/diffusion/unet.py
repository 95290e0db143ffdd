"""A small conditional U-Net (paper App. G; seed 003).

ResNet blocks (GroupNorm, GELU, 3x3 convolutions) at three resolutions, widths
``widths = (c1, c2, c3)``; the time embedding (sinusoidal of ``gamma``) and the
conditioning MLP (colour RGB + radius) are added inside every block; optional
self-attention at the bottleneck; a zero-initialised output convolution, so an
untrained network predicts 0.
"""
from __future__ import annotations

import math
from typing import Sequence

import torch
from torch import nn
import torch.nn.functional as F


def _groups(ch: int) -> int:
    for g in (8, 4, 2, 1):
        if ch % g == 0:
            return g
    return 1


class ResBlock(nn.Module):
    """GroupNorm-GELU-conv, add embedding, GroupNorm-GELU-conv, residual."""

    def __init__(self, c_in: int, c_out: int, emb_dim: int):
        super().__init__()
        self.n1 = nn.GroupNorm(_groups(c_in), c_in)
        self.c1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.emb = nn.Linear(emb_dim, c_out)
        self.n2 = nn.GroupNorm(_groups(c_out), c_out)
        self.c2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: torch.Tensor, emb: torch.Tensor) -> torch.Tensor:
        h = self.c1(F.gelu(self.n1(x)))
        h = h + self.emb(emb)[:, :, None, None]
        h = self.c2(F.gelu(self.n2(h)))
        return h + self.skip(x)


class Attention(nn.Module):
    """Single-head self-attention over pixels, residual."""

    def __init__(self, ch: int):
        super().__init__()
        self.norm = nn.GroupNorm(_groups(ch), ch)
        self.qkv = nn.Conv2d(ch, 3 * ch, 1)
        self.out = nn.Conv2d(ch, ch, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        q, k, v = self.qkv(self.norm(x)).reshape(b, 3, c, h * w).unbind(1)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        return x + self.out(a.transpose(1, 2).reshape(b, c, h, w))


class CondUNet(nn.Module):
    """Conditional U-Net ``f(z, gamma, c)`` (App. G).

    Parameters
    ----------
    widths : channels at the three resolutions (paper: ``(64, 128, 256)``).
    cond_dim : size of the conditioning vector (4: RGB + radius).
    n_res : ResNet blocks per level (paper: 2).
    attention : one self-attention block at the bottleneck (paper: yes).
    emb_dim : size of the time + conditioning embedding (default ``4 * widths[0]``).
    """

    def __init__(self, widths: Sequence[int] = (64, 128, 256), cond_dim: int = 4, n_res: int = 2,
                 attention: bool = True, emb_dim: int | None = None):
        super().__init__()
        widths = tuple(int(w) for w in widths)
        if len(widths) != 3 or any(w < 1 for w in widths):
            raise ValueError(f"widths must be three positive channel counts, got {widths!r}")
        if n_res < 1:
            raise ValueError(f"n_res must be >= 1, got {n_res!r}")
        e = emb_dim or 4 * widths[0]
        self.t_dim = widths[0]
        self.t_mlp = nn.Sequential(nn.Linear(widths[0], e), nn.GELU(), nn.Linear(e, e))
        self.c_mlp = nn.Sequential(nn.Linear(cond_dim, e), nn.GELU(), nn.Linear(e, e))
        self.inp = nn.Conv2d(3, widths[0], 3, padding=1)
        self.down = nn.ModuleList()
        self.pool = nn.ModuleList()
        c = widths[0]
        skips = []
        for i, w in enumerate(widths):
            blocks = nn.ModuleList()
            for _ in range(n_res):
                blocks.append(ResBlock(c, w, e))
                c = w
                skips.append(c)
            self.down.append(blocks)
            self.pool.append(nn.Conv2d(c, c, 3, stride=2, padding=1) if i < 2 else nn.Identity())
        self.mid1 = ResBlock(c, c, e)
        self.attn = Attention(c) if attention else nn.Identity()
        self.mid2 = ResBlock(c, c, e)
        self.up = nn.ModuleList()
        self.unpool = nn.ModuleList()
        for i, w in reversed(list(enumerate(widths))):
            blocks = nn.ModuleList()
            for _ in range(n_res):
                blocks.append(ResBlock(c + skips.pop(), w, e))
                c = w
            self.up.append(blocks)
            self.unpool.append(nn.Conv2d(c, widths[i - 1], 3, padding=1) if i > 0 else nn.Identity())
            if i > 0:
                c = widths[i - 1]
        self.out_norm = nn.GroupNorm(_groups(c), c)
        self.out = nn.Conv2d(c, 3, 3, padding=1)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def _time_features(self, gamma: torch.Tensor) -> torch.Tensor:
        # gamma in about [-5, 10] -> rescale to [0, 1000] like a step index
        t = (gamma + 5.0) / 15.0 * 1000.0
        half = self.t_dim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=gamma.device) / max(half, 1))
        a = t[:, None] * freqs[None]
        f = torch.cat([torch.sin(a), torch.cos(a)], dim=1)
        return F.pad(f, (0, self.t_dim - f.shape[1]))

    def forward(self, z: torch.Tensor, gamma: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        if gamma.ndim == 0:
            gamma = gamma.expand(z.shape[0])
        emb = self.t_mlp(self._time_features(gamma)) + self.c_mlp(cond)
        h = self.inp(z)
        hs = []
        for blocks, pool in zip(self.down, self.pool):
            for b in blocks:
                h = b(h, emb)
                hs.append(h)
            h = pool(h)
        h = self.mid2(self.attn(self.mid1(h, emb)), emb)
        for blocks, unpool in zip(self.up, self.unpool):
            for b in blocks:
                h = b(torch.cat([h, hs.pop()], dim=1), emb)
            if not isinstance(unpool, nn.Identity):
                h = unpool(F.interpolate(h, scale_factor=2.0, mode="nearest"))
        return self.out(F.gelu(self.out_norm(h)))
