r"""Variational diffusion model (VDM; Kingma et al. 2021), as used in paper Sec. 5.

Continuous time ``t in [0, 1]``; the forward process is variance preserving,

    z_t = alpha_t x + sigma_t eps,  alpha_t^2 = sigmoid(-gamma(t)),  sigma_t^2 = sigmoid(gamma(t)),

with a *learned linear* noise schedule ``gamma(t) = gamma_min + (gamma_max - gamma_min) t``
(both ends trainable, initialised at -5 and 10). The loss is the VDM negative ELBO

    L = L_prior + L_recon + L_diff,
    L_diff = 1/2 gamma'(t) E || eps - eps_hat(z_t, t) ||^2,  t ~ U[0, 1] (antithetic),

in nats per image. The network is *v-parameterised* (Salimans & Ho 2022): it outputs
``v_hat`` with ``eps_hat = sigma_t z_t + alpha_t v_hat`` and ``x_hat = alpha_t z_t - sigma_t v_hat``;
the loss is the same ELBO. The decoder ``p(x | z_0)`` is a discretized Gaussian with 256
bins per subpixel, in closed form (no 256-way softmax).
"""
from __future__ import annotations

import math

import torch
from torch import nn

N_BINS = 256


class LinearSchedule(nn.Module):
    """Learned linear noise schedule ``gamma(t) = gamma_min + (gamma_max - gamma_min) t``."""

    def __init__(self, gamma_min: float = -5.0, gamma_max: float = 10.0, learned: bool = True):
        super().__init__()
        if not gamma_min < gamma_max:
            raise ValueError(f"need gamma_min < gamma_max, got {gamma_min}, {gamma_max}")
        self.gamma_min = nn.Parameter(torch.tensor(float(gamma_min)), requires_grad=learned)
        self.gamma_max = nn.Parameter(torch.tensor(float(gamma_max)), requires_grad=learned)

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.gamma_min + (self.gamma_max - self.gamma_min) * t


def alpha_sigma(gamma: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(alpha, sigma)`` of a variance-preserving process at log-SNR ``-gamma``."""
    return torch.sqrt(torch.sigmoid(-gamma)), torch.sqrt(torch.sigmoid(gamma))


def to_model_space(images: torch.Tensor) -> torch.Tensor:
    """Images in [0, 1] -> data ``x`` in [-1, 1]."""
    return images * 2 - 1


def discretized_gaussian_nll(x: torch.Tensor, mean: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``-log P(x)`` per subpixel for a Gaussian binned into 256 bins on [-1, 1].

    The outermost bins extend to +-infinity. Closed form with the normal CDF.
    """
    half = 1.0 / (N_BINS - 1)
    upper = torch.where(x > 1 - half, torch.full_like(x, float("inf")), (x + half - mean) / scale)
    lower = torch.where(x < -1 + half, torch.full_like(x, float("-inf")), (x - half - mean) / scale)
    p = torch.special.ndtr(upper) - torch.special.ndtr(lower)
    return -torch.log(p.clamp_min(1e-12))


class VDM(nn.Module):
    """The diffusion model: a network ``net(z, gamma, cond) -> v_hat`` and a schedule.

    Parameters
    ----------
    net : a :class:`swingby.diffusion.unet.CondUNet` (or any module with that call).
    gamma_min, gamma_max : initial ends of the learned linear schedule (paper: -5, 10).
    """

    def __init__(self, net: nn.Module, gamma_min: float = -5.0, gamma_max: float = 10.0):
        super().__init__()
        self.net = net
        self.gamma = LinearSchedule(gamma_min, gamma_max)

    def loss(self, images: torch.Tensor, cond: torch.Tensor, generator: torch.Generator | None = None
             ) -> tuple[torch.Tensor, dict]:
        """Negative ELBO in nats per image, averaged over the batch (VDM eqs. 11-17).

        Returns the loss and a dict of its three terms in nats per *dimension*.
        """
        x = to_model_space(images)
        b = x.shape[0]
        dims = x[0].numel()
        # antithetic time sampling: one uniform offset, evenly spread times
        u0 = torch.rand((), generator=generator)
        t = torch.remainder(u0 + torch.arange(b) / b, 1.0)
        g_t = self.gamma(t)
        a_t, s_t = alpha_sigma(g_t)
        eps = torch.randn(x.shape, generator=generator)
        z_t = a_t[:, None, None, None] * x + s_t[:, None, None, None] * eps
        v_hat = self.net(z_t, g_t, cond)
        eps_hat = s_t[:, None, None, None] * z_t + a_t[:, None, None, None] * v_hat
        dgamma = self.gamma.gamma_max - self.gamma.gamma_min
        l_diff = 0.5 * dgamma * ((eps - eps_hat) ** 2).flatten(1).sum(1)
        # prior: KL(q(z_1 | x) || N(0, I))
        a1, s1 = alpha_sigma(self.gamma(torch.ones(())))
        l_prior = 0.5 * (s1 ** 2 + (a1 * x) ** 2 - 1 - torch.log(s1 ** 2)).flatten(1).sum(1)
        # reconstruction: -log p(x | z_0), z_0 ~ q(z_0 | x), decoder mean z_0 / alpha_0
        a0, s0 = alpha_sigma(self.gamma(torch.zeros(())))
        z_0 = a0 * x + s0 * torch.randn(x.shape, generator=generator)
        l_recon = discretized_gaussian_nll(x, z_0 / a0, s0 / a0).flatten(1).sum(1)
        total = (l_diff + l_prior + l_recon).mean()
        parts = {"diff": float(l_diff.detach().mean()) / dims, "prior": float(l_prior.detach().mean()) / dims,
                 "recon": float(l_recon.detach().mean()) / dims}
        return total, parts

    @torch.no_grad()
    def sample(self, cond: torch.Tensor, n_steps: int = 50, image_size: int = 32,
               generator: torch.Generator | None = None) -> torch.Tensor:
        """Ancestral sampling with ``n_steps`` equal time steps from ``t = 1`` to ``0``.

        Each step draws ``z_s ~ q(z_s | z_t, x = x_hat(z_t))`` (VDM eq. 34); the last
        output is the predicted ``x_hat`` at ``t = 0``, clipped, returned as images
        ``(n, 3, H, W)`` in [0, 1].
        """
        if isinstance(n_steps, bool) or int(n_steps) != n_steps or n_steps < 1:
            raise ValueError(f"n_steps must be a positive integer, got {n_steps!r}")
        n = cond.shape[0]
        z = torch.randn((n, 3, image_size, image_size), generator=generator)
        ts = torch.linspace(1.0, 0.0, int(n_steps) + 1)
        for i in range(int(n_steps)):
            g_t, g_s = self.gamma(ts[i]), self.gamma(ts[i + 1])
            a_t, s_t = alpha_sigma(g_t)
            a_s, s_s = alpha_sigma(g_s)
            v_hat = self.net(z, g_t.expand(n), cond)
            x_hat = (a_t * z - s_t * v_hat).clamp(-1, 1)
            # q(z_s | z_t, x): c = 1 - exp(gamma_s - gamma_t) = sigma_{t|s}^2 / sigma_t^2
            c = -torch.expm1(g_s - g_t)
            mean = (a_s / a_t) * (1 - c) * z + a_s * c * x_hat
            std = s_s * torch.sqrt(c)
            z = mean + std * torch.randn(z.shape, generator=generator)
        g0 = self.gamma(torch.zeros(()))
        a0, s0 = alpha_sigma(g0)
        x_hat = (a0 * z - s0 * self.net(z, g0.expand(n), cond)).clamp(-1, 1)
        return (x_hat + 1) / 2
