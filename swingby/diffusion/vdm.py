"""Variational diffusion model (VDM; Kingma et al. 2021), as in paper Sec. 5: variance-preserving
``z_t = alpha_t x + sigma_t eps``, ``alpha_t^2 = sigmoid(-gamma(t))``, a learned linear schedule
``gamma(t)``, and the negative ELBO ``L_prior + L_recon + L_diff`` in nats per image. Four details
(``DETAILS``) are each an argument of :class:`VDM`, so that each one's effect can be measured
alone; ``style`` sets all four: the book's first design or the authors' code.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from swingby import _checks
from swingby.diffusion import _inputs

__all__ = ["VDM"]

N_BINS = 256
GAMMA_LIMIT = 30.0  #: bound of the schedule's ends: beyond it float32 loses alpha or sigma


#: the allowed values of each VDM detail; the first is the book's, the second the authors'
DETAILS = {"parameterization": ("v", "eps"), "decoder": ("discrete", "gaussian"),
           "data_range": ("pm1", "01"), "sampler": ("clamp_xhat", "z0")}
STYLES = {"book": {k: v[0] for k, v in DETAILS.items()}, "authors": {k: v[1] for k, v in DETAILS.items()}}


class LinearSchedule(nn.Module):
    """Learned linear noise schedule ``gamma(t) = gamma_min + (gamma_max - gamma_min) t``."""

    def __init__(self, gamma_min: float = -5.0, gamma_max: float = 10.0, learned: bool = True):
        super().__init__()
        gamma_min = _checks.number("gamma_min", gamma_min, low=-GAMMA_LIMIT, high=GAMMA_LIMIT)
        gamma_max = _checks.number("gamma_max", gamma_max, low=-GAMMA_LIMIT, high=GAMMA_LIMIT)
        learned = _checks.flag("learned", learned)
        if not gamma_min < gamma_max:
            raise ValueError(f"need gamma_min < gamma_max, got {gamma_min}, {gamma_max}")
        self.gamma_min = nn.Parameter(torch.tensor(float(gamma_min)), requires_grad=learned)
        self.gamma_max = nn.Parameter(torch.tensor(float(gamma_max)), requires_grad=learned)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        """``gamma(t)`` at diffusion times ``t`` in [0, 1]."""
        _inputs.tensor("t", t, low=0.0, high=1.0)
        return self.gamma_min + (self.gamma_max - self.gamma_min) * t


def alpha_sigma(gamma: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(alpha, sigma)`` of a variance-preserving process at log-SNR ``-gamma``."""
    _inputs.tensor("gamma", gamma)
    return torch.sqrt(torch.sigmoid(-gamma)), torch.sqrt(torch.sigmoid(gamma))


def to_model_space(images: torch.Tensor, data_range: str = "pm1") -> torch.Tensor:
    """Float32 images ``(n, 3, H, W)`` in [0, 1] as data in [-1, 1] (``"pm1"``) or unchanged (``"01"``)."""
    _checks.choice("data_range", data_range, DETAILS["data_range"])
    _inputs.tensor("images", images, ndim=4, dtypes=(torch.float32,), min_len=1, low=0.0, high=1.0)
    if images.shape[1] != 3:
        raise ValueError(f"images must be a batch (n, 3, H, W) of RGB images, got shape {tuple(images.shape)}")
    return images * 2 - 1 if data_range == "pm1" else images


def from_model_space(x: torch.Tensor, data_range: str = "pm1") -> torch.Tensor:
    """Inverse of ``to_model_space`` (not clipped)."""
    _checks.choice("data_range", data_range, DETAILS["data_range"])
    _inputs.tensor("x", x)
    return (x + 1) / 2 if data_range == "pm1" else x


def discretized_gaussian_nll(x: torch.Tensor, mean: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``-log P(x)`` per subpixel of ``x`` in [-1, 1] under a Gaussian binned into 256 bins (ends open)."""
    _inputs.tensor("x", x, low=-1.0, high=1.0)
    _inputs.tensor("mean", mean)
    _inputs.tensor("scale", scale)
    if scale.numel() and not bool((scale > 0).all()):
        raise ValueError(f"scale must be > 0 everywhere (a standard deviation), got a minimum of {float(scale.min())}")
    try:
        torch.broadcast_shapes(x.shape, mean.shape, scale.shape)
    except RuntimeError:
        raise ValueError(f"mean {tuple(mean.shape)} and scale {tuple(scale.shape)} must broadcast to x "
                         f"{tuple(x.shape)}") from None
    half = 1.0 / (N_BINS - 1)
    upper = torch.where(x > 1 - half, torch.full_like(x, float("inf")), (x + half - mean) / scale)
    lower = torch.where(x < -1 + half, torch.full_like(x, float("-inf")), (x - half - mean) / scale)
    p = torch.special.ndtr(upper) - torch.special.ndtr(lower)
    return -torch.log(p.clamp_min(1e-12))


class VDM(nn.Module):
    """The diffusion model: a network ``net(z, gamma, cond)`` and a learned schedule.

    Parameters
    ----------
    net : torch.nn.Module
        A ``swingby.diffusion.unet.CondUNet`` (or any module with that call).
    gamma_min, gamma_max : float
        Initial ends of the schedule.
    style : {"book", "authors"}
        Sets the four details below at once.
    parameterization : {"v", "eps"}, optional
        What the network predicts (``v``: Salimans & Ho 2022).
    decoder : {"discrete", "gaussian"}, optional
        ``p(x | z_0)``: a Gaussian binned into 256 bins per subpixel, or continuous of std ``data_noise``.
    data_range : {"pm1", "01"}, optional
        Data in [-1, 1] or in [0, 1].
    sampler : {"clamp_xhat", "z0"}, optional
        Clamp ``x_hat`` at each step and return ``x_hat(t=0)``, or no clamping and ``z_0``.
    data_noise : float
    """

    def __init__(self, net: nn.Module, gamma_min: float = -5.0, gamma_max: float = 10.0, *,
                 style: str = "book", parameterization: str | None = None, decoder: str | None = None,
                 data_range: str | None = None, sampler: str | None = None, data_noise: float = 1e-3):
        super().__init__()
        _inputs.instance("net", net, nn.Module, "torch.nn.Module such as swingby.diffusion.unet.CondUNet")
        _checks.choice("style", style, sorted(STYLES))
        given = {"parameterization": parameterization, "decoder": decoder, "data_range": data_range, "sampler": sampler}
        for k, v in given.items():
            if v is not None:
                _checks.choice(k, v, DETAILS[k])
        self.details = {k: (v if v is not None else STYLES[style][k]) for k, v in given.items()}
        self.data_noise = _checks.positive_float("data_noise", data_noise)
        self.net = net
        self.gamma = LinearSchedule(gamma_min, gamma_max)

    def _check_batch(self, images: torch.Tensor, cond: torch.Tensor) -> None:
        """Refuse images and conditioning vectors that do not fit the model."""
        _inputs.images("images", images)
        _inputs.batch_cond("cond", cond, images.shape[0], getattr(self.net, "cond_dim", None))

    def _x_and_eps(self, z: torch.Tensor, out: torch.Tensor, a: torch.Tensor, s: torch.Tensor):
        """``(x_hat, eps_hat)`` from the network output under the parameterization."""
        if self.details["parameterization"] == "v":
            return a * z - s * out, s * z + a * out
        return (z - s * out) / a, out

    def loss(self, images: torch.Tensor, cond: torch.Tensor, generator: torch.Generator | None = None
             ) -> tuple[torch.Tensor, dict]:
        """``(loss, terms)``: the negative ELBO in nats per image, averaged over the batch (VDM
        eqs. 11-17), and its terms ``diff``, ``prior``, ``recon`` in nats per dimension.

        Parameters
        ----------
        images : torch.Tensor (n, 3, H, W)
            Training images in [0, 1].
        cond : torch.Tensor (n, 4)
        generator : torch.Generator, optional
            Draws the diffusion times and noise.
        """
        self._check_batch(images, cond)
        _inputs.generator("generator", generator, torch.Generator, optional=True)
        x = to_model_space(images, self.details["data_range"])
        b = x.shape[0]
        dims = x[0].numel()
        dev = x.device
        # antithetic time sampling: one uniform offset, evenly spread times
        u0 = torch.rand((), generator=generator, device=dev)
        t = torch.remainder(u0 + torch.arange(b, device=dev) / b, 1.0)
        g_t = self.gamma(t)
        a_t, s_t = (v[:, None, None, None] for v in alpha_sigma(g_t))
        eps = torch.randn(x.shape, generator=generator, device=dev)
        z_t = a_t * x + s_t * eps
        _, eps_hat = self._x_and_eps(z_t, self.net(z_t, g_t, cond), a_t, s_t)
        dgamma = self.gamma.gamma_max - self.gamma.gamma_min
        l_diff = 0.5 * dgamma * ((eps - eps_hat.float()) ** 2).flatten(1).sum(1)
        # prior: KL(q(z_1 | x) || N(0, I))
        a1, s1 = alpha_sigma(self.gamma(torch.ones((), device=dev)))
        l_prior = 0.5 * (s1 ** 2 + (a1 * x) ** 2 - 1 - torch.log(s1 ** 2)).flatten(1).sum(1)
        # reconstruction: -log p(x | z_0), z_0 ~ q(z_0 | x), decoder mean z_0 / alpha_0
        a0, s0 = alpha_sigma(self.gamma(torch.zeros((), device=dev)))
        z_0 = a0 * x + s0 * torch.randn(x.shape, generator=generator, device=dev)
        if self.details["decoder"] == "discrete":
            nll = discretized_gaussian_nll(x, z_0 / a0, s0 / a0)
        else:
            nll = 0.5 * ((x - z_0 / a0) / self.data_noise) ** 2 + math.log(self.data_noise * math.sqrt(2 * math.pi))
        l_recon = nll.flatten(1).sum(1)
        total = (l_diff + l_prior + l_recon).mean()
        for name, term in (("diffusion", l_diff), ("prior", l_prior), ("reconstruction", l_recon)):
            _inputs.finite_output(f"VDM.loss: the {name} term", term.detach())
        parts = {"diff": float(l_diff.detach().mean()) / dims, "prior": float(l_prior.detach().mean()) / dims,
                 "recon": float(l_recon.detach().mean()) / dims}
        return total, parts

    @torch.no_grad()
    def sample(self, cond: torch.Tensor, n_steps: int = 50, image_size: int = 32,
               generator: torch.Generator | None = None) -> torch.Tensor:
        """Float32 images ``(n, 3, H, W)`` in [0, 1] on ``cond``'s device, by ancestral sampling in
        ``n_steps`` equal steps from ``t = 1`` to 0, each ``z_s ~ q(z_s | z_t, x = x_hat(z_t))``
        (VDM eq. 34), clipped to [0, 1] at the end for measurement.

        Parameters
        ----------
        cond : torch.Tensor (n, 4)
        n_steps : int
        image_size : int
        generator : torch.Generator, optional
        """
        n_steps = _checks.integer("n_steps", n_steps, low=1, high=100_000)
        if not _checks.is_integer(image_size) or image_size < 8 or image_size % 4 or image_size > 256:
            raise ValueError(f"image_size must be an integer in [8, 256] divisible by 4, got {image_size!r}")
        _inputs.batch_cond("cond", cond, None, getattr(self.net, "cond_dim", None))
        _inputs.generator("generator", generator, torch.Generator, optional=True)
        if cond.shape[0] * int(image_size) ** 2 > 2 ** 26:
            raise ValueError(f"{cond.shape[0]} prompts at image_size={image_size} do not fit one sampling "
                             "batch; sample in smaller batches")
        clamp = self.details["sampler"] == "clamp_xhat"
        lo, hi = (-1.0, 1.0) if self.details["data_range"] == "pm1" else (0.0, 1.0)
        n, dev = cond.shape[0], cond.device
        z = torch.randn((n, 3, int(image_size), int(image_size)), generator=generator, device=dev)
        ts = torch.linspace(1.0, 0.0, int(n_steps) + 1, device=dev)
        for i in range(int(n_steps)):
            g_t, g_s = self.gamma(ts[i]), self.gamma(ts[i + 1])
            a_t, s_t = alpha_sigma(g_t)
            a_s, s_s = alpha_sigma(g_s)
            x_hat, _ = self._x_and_eps(z, self.net(z, g_t.expand(n), cond).float(), a_t, s_t)
            if clamp:
                x_hat = x_hat.clamp(lo, hi)
            # q(z_s | z_t, x): c = 1 - exp(gamma_s - gamma_t) = sigma_{t|s}^2 / sigma_t^2
            c = -torch.expm1(g_s - g_t)
            mean = (a_s / a_t) * (1 - c) * z + a_s * c * x_hat
            std = s_s * torch.sqrt(c)
            z = mean + std * torch.randn(z.shape, generator=generator, device=dev)
            _inputs.finite_output(f"VDM.sample: z at step {i + 1} of {n_steps}", z)
        if clamp:
            g0 = self.gamma(torch.zeros((), device=dev))
            a0, s0 = alpha_sigma(g0)
            out, _ = self._x_and_eps(z, self.net(z, g0.expand(n), cond).float(), a0, s0)
        else:
            out = z
        _inputs.finite_output("VDM.sample: the sampled images", out)
        return from_model_space(out.clamp(lo, hi), self.details["data_range"]).float()
