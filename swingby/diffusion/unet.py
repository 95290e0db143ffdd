"""A small conditional U-Net (paper App. G): ResNet blocks at three resolutions, the time
(sinusoidal of ``gamma``) and conditioning (RGB + radius) embeddings added in every block,
optional self-attention at the bottleneck, and a zero-initialised output (an untrained
network predicts 0).
"""
from __future__ import annotations

import math
from typing import Sequence

import torch
import torch.nn.functional as F
from torch import nn

from swingby import _checks
from swingby.diffusion import _inputs

__all__ = []


def _groups(ch: int) -> int:
    """Groups of a GroupNorm over ``ch`` channels."""
    for g in (8, 4, 2, 1):
        if ch % g == 0:
            return g
    return 1


class ResBlock(nn.Module):
    """GroupNorm-GELU-conv, add embeddings, GroupNorm-GELU-(dropout)-conv, residual; ``per_block``: own MLPs."""

    def __init__(self, c_in: int, c_out: int, emb_dim: int, *, per_block: tuple | None = None,
                 dropout: float = 0.0, zero_second: bool = False):
        super().__init__()
        c_in, c_out = _checks.positive_int("c_in", c_in), _checks.positive_int("c_out", c_out)
        emb_dim = _checks.positive_int("emb_dim", emb_dim)
        if per_block is not None:
            if not isinstance(per_block, tuple) or len(per_block) != 2:
                raise ValueError(f"per_block must be None or a pair (t_dim, c_dim) of positive integers, "
                                 f"got {per_block!r}")
            per_block = tuple(_checks.positive_int(f"per_block[{i}]", d) for i, d in enumerate(per_block))
        dropout = _checks.number("dropout", dropout, low=0.0, high=1.0, high_open=True)
        zero_second = _checks.flag("zero_second", zero_second)
        _checks.memory(4.0 * (9 * (c_in + c_out) * c_out + emb_dim * c_out), f"c_in = {c_in}, c_out = {c_out}")
        self.n1 = nn.GroupNorm(_groups(c_in), c_in)
        self.c1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        if per_block is None:
            self.emb = nn.Linear(emb_dim, c_out)
        else:
            self.t_proj, self.c_proj = (nn.Sequential(nn.Linear(d, c_out), nn.GELU(),
                                                      nn.Linear(c_out, c_out), nn.GELU())
                                        for d in per_block)
        self.n2 = nn.GroupNorm(_groups(c_out), c_out)
        self.drop = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.c2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        if zero_second:
            nn.init.zeros_(self.c2.weight)
            nn.init.zeros_(self.c2.bias)
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def _check_emb(self, emb, n: int) -> None:
        """Refuse an embedding that does not fit this block (kind, batch size, width)."""
        per_block = hasattr(self, "t_proj")
        if per_block != isinstance(emb, tuple):
            raise TypeError(f"emb must be {'a pair (time features, conditioning)' if per_block else 'a tensor'} "
                            f"for this block, got {_checks.short_repr(emb)}")
        parts = emb if per_block else (emb,)
        dims = (self.t_proj[0].in_features, self.c_proj[0].in_features) if per_block else (self.emb.in_features,)
        if len(parts) != len(dims):
            raise ValueError(f"emb must be a pair (time features, conditioning), got {len(parts)} entries")
        for part, d in zip(parts, dims):
            _inputs.tensor("emb", part, ndim=2, finite=False)  # finiteness: CondUNet.forward's output
            if part.shape != (n, d):
                raise ValueError(f"emb must have shape ({n}, {d}) to match x, got {tuple(part.shape)}")

    def forward(self, x: torch.Tensor, emb) -> torch.Tensor:
        """The block's output for feature maps ``x (n, c_in, H, W)`` and embedding ``emb``."""
        _inputs.tensor("x", x, ndim=4, min_len=1, finite=False)
        if x.shape[1] != self.c1.in_channels:
            raise ValueError(f"x must have c_in = {self.c1.in_channels} channels, got shape {tuple(x.shape)}")
        self._check_emb(emb, x.shape[0])
        return self._forward(x, emb)

    def _forward(self, x: torch.Tensor, emb) -> torch.Tensor:
        """``forward`` without its checks (for ``CondUNet``, which checked its inputs)."""
        h = self.c1(F.gelu(self.n1(x)))
        if isinstance(emb, tuple):  # (time features, conditioning): per-block MLPs
            e = self.t_proj(emb[0]) + self.c_proj(emb[1])
        else:
            e = self.emb(emb)
        h = h + e[:, :, None, None]
        h = self.c2(self.drop(F.gelu(self.n2(h))))
        return h + self.skip(x)


class Attention(nn.Module):
    """Multi-head self-attention over pixels, residual (``heads`` must divide ``ch``)."""

    def __init__(self, ch: int, heads: int = 1):
        super().__init__()
        ch = _checks.positive_int("ch", ch)
        heads = _checks.positive_int("heads", heads)
        _checks.memory(4.0 * 4 * ch * ch, f"ch = {ch}")
        if ch % heads:
            raise ValueError(f"heads must be a positive divisor of the channels {ch}, got {heads!r}")
        self.heads = heads
        self.norm = nn.GroupNorm(_groups(ch), ch)
        self.qkv = nn.Conv2d(ch, 3 * ch, 1)
        self.out = nn.Conv2d(ch, ch, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``x (n, ch, H, W)`` plus self-attention over its pixels."""
        _inputs.tensor("x", x, ndim=4, finite=False)
        if x.shape[1] != self.qkv.in_channels:
            raise ValueError(f"x must have {self.qkv.in_channels} channels, got shape {tuple(x.shape)}")
        return self._forward(x)

    def _forward(self, x: torch.Tensor) -> torch.Tensor:
        """``forward`` without its checks."""
        b, c, h, w = x.shape
        qkv = self.qkv(self.norm(x)).reshape(b, 3, self.heads, c // self.heads, h * w)
        q, k, v = qkv.transpose(-1, -2).unbind(1)  # (b, heads, hw, c/heads)
        a = F.scaled_dot_product_attention(q, k, v)  # (b, heads, hw, c/heads)
        return x + self.out(a.transpose(-1, -2).reshape(b, c, h, w))


BLOCK_STYLES = ("shared", "authors")  #: the book's first design and the authors' code (``sep_mlp``)


def _check_unet_args(widths, cond_dim, n_res, emb_dim) -> tuple[tuple, int, int, int]:
    """Checked ``(widths, cond_dim, n_res, emb_dim)`` of ``CondUNet``, refusing a network too large for memory."""
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__len__") or len(widths) != 3:
        raise ValueError(f"widths must be three positive integers (channels per level), got {widths!r}")
    widths = tuple(_checks.positive_int(f"widths[{i}]", w) for i, w in enumerate(widths))
    cond_dim = _checks.positive_int("cond_dim", cond_dim)
    n_res = _checks.integer("n_res", n_res, low=1, high=64)
    e = 4 * widths[0] if emb_dim is None else _checks.positive_int("emb_dim", emb_dim)
    _checks.memory(4.0 * 9 * 4 * sum(w * w for w in widths) * (2 * n_res + 2) + 4.0 * e * e * 2,
                   f"widths = {widths} with n_res = {n_res} and emb_dim = {e}")
    return widths, cond_dim, n_res, e


class CondUNet(nn.Module):
    """Conditional U-Net ``f(z, gamma, c)``; ``style="authors"``: per-block MLPs (``sep_mlp``), 4 heads."""

    def __init__(self, widths: Sequence[int] = (64, 128, 256), cond_dim: int = 4, n_res: int = 2,
                 attention: bool = True, emb_dim: int | None = None, *, style: str = "shared",
                 dropout: float = 0.0, residual: bool = False):
        super().__init__()
        widths, cond_dim, n_res, e = _check_unet_args(widths, cond_dim, n_res, emb_dim)
        attention, residual = _checks.flag("attention", attention), _checks.flag("residual", residual)
        _checks.choice("style", style, BLOCK_STYLES)
        dropout = _checks.number("dropout", dropout, low=0.0, high=1.0, high_open=True)
        self.cond_dim, self.residual, self.style = cond_dim, residual, style
        self.t_dim = widths[0]
        self.t_mlp = nn.Sequential(nn.Linear(widths[0], e), nn.GELU(), nn.Linear(e, e))
        if style == "shared":
            self.c_mlp = nn.Sequential(nn.Linear(cond_dim, e), nn.GELU(), nn.Linear(e, e))
            kw = {}
        else:
            kw = {"per_block": (e, cond_dim), "zero_second": True}
        kw["dropout"] = dropout

        def block(c_in, c_out):
            return ResBlock(c_in, c_out, e, **kw)

        self.inp = nn.Conv2d(3, widths[0], 3, padding=1)
        self.down = nn.ModuleList()
        self.pool = nn.ModuleList()
        c = widths[0]
        skips = []
        for i, w in enumerate(widths):
            blocks = nn.ModuleList()
            for _ in range(n_res):
                blocks.append(block(c, w))
                c = w
                skips.append(c)
            self.down.append(blocks)
            self.pool.append(nn.Conv2d(c, c, 3, stride=2, padding=1) if i < 2 else nn.Identity())
        self.mid1 = block(c, c)
        self.attn = Attention(c, 4 if style == "authors" and c % 4 == 0 else 1) if attention else nn.Identity()
        self.mid2 = block(c, c)
        self.up = nn.ModuleList()
        self.unpool = nn.ModuleList()
        for i, w in reversed(list(enumerate(widths))):
            blocks = nn.ModuleList()
            for _ in range(n_res):
                blocks.append(block(c + skips.pop(), w))
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
        """Sinusoidal features of ``gamma``."""
        # gamma in about [-5, 10] -> [0, 1000], like a step index
        t = (gamma + 5.0) / 15.0 * 1000.0
        half = self.t_dim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, device=gamma.device) / max(half, 1))
        a = t[:, None] * freqs[None]
        f = torch.cat([torch.sin(a), torch.cos(a)], dim=1)
        return F.pad(f, (0, self.t_dim - f.shape[1]))

    def embed(self, gamma: torch.Tensor, cond: torch.Tensor):
        """What the blocks receive: one embedding, or (``"authors"``) the pair (time, raw conditioning)."""
        _inputs.tensor("gamma", gamma, ndim=1, min_len=1)
        _inputs.tensor("cond", cond, ndim=2, dtypes=(torch.float32, torch.bfloat16, torch.float16))
        if cond.shape != (gamma.shape[0], self.cond_dim):
            raise ValueError(f"cond must be ({gamma.shape[0]}, {self.cond_dim}) to match gamma, "
                             f"got {tuple(cond.shape)}")
        t = self.t_mlp(self._time_features(gamma))
        if self.style == "shared":
            return t + self.c_mlp(cond)
        return (F.gelu(t), cond)

    def forward(self, z: torch.Tensor, gamma: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        """Noise or ``v`` (as the VDM reads it) for ``z (n, 3, H, W)`` at ``gamma`` with ``cond``."""
        _inputs.images("z", z, low=None, high=None, dtypes=(torch.float32, torch.bfloat16, torch.float16))
        _inputs.tensor("cond", cond, ndim=2, dtypes=(torch.float32, torch.bfloat16, torch.float16))
        if cond.shape != (z.shape[0], self.cond_dim):
            raise ValueError(f"cond must be ({z.shape[0]}, {self.cond_dim}) to match z, got {tuple(cond.shape)}")
        _inputs.tensor("gamma", gamma)
        if gamma.ndim > 1 or (gamma.ndim == 1 and gamma.shape[0] != z.shape[0]):
            raise ValueError(f"gamma must be a scalar or ({z.shape[0]},) like z, got shape {tuple(gamma.shape)}")
        if gamma.ndim == 0:
            gamma = gamma.expand(z.shape[0])
        emb = self.embed(gamma, cond)
        h = self.inp(z)
        hs = []
        for blocks, pool in zip(self.down, self.pool):
            for b in blocks:
                h = b._forward(h, emb)  # the blocks trust this method's checked inputs
                hs.append(h)
            h = pool(h)
        h = self.mid1._forward(h, emb)
        h = self.mid2._forward(h if isinstance(self.attn, nn.Identity) else self.attn._forward(h), emb)
        for blocks, unpool in zip(self.up, self.unpool):
            for b in blocks:
                h = b._forward(torch.cat([h, hs.pop()], dim=1), emb)
            if not isinstance(unpool, nn.Identity):
                h = unpool(F.interpolate(h, scale_factor=2.0, mode="nearest"))
        out = self.out(F.gelu(self.out_norm(h)))
        out = out + z if self.residual else out
        _inputs.finite_output("CondUNet.forward: the network output", out.detach())
        return out
