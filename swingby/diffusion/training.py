"""Training one diffusion model of the Sec. 5 sweep: the model a preset describes, its device
and precision, and a training state (:class:`Run`) that resumes bit for bit.
"""
from __future__ import annotations

import contextlib
import copy

import numpy as np
import torch

from swingby import _checks
from swingby.diffusion import _inputs
from swingby.diffusion.presets import Preset, validate_preset
from swingby.diffusion.unet import CondUNet
from swingby.diffusion.vdm import VDM

__all__ = ["Run", "autocast", "build_model"]

#: what each loss record holds, in order
LOSS_FIELDS = ("step", "loss", "diff", "prior", "recon", "gamma_min", "gamma_max",
               "grad_colour", "grad_size", "grad_conv")


def resolve_device(device: str | None = "auto") -> torch.device:
    """``"auto"`` (CUDA when present, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``."""
    if device is None or device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if not isinstance(device, str) or not (device == "cpu" or device.startswith("cuda")):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for, but this machine has no CUDA GPU; use 'cpu' or 'auto'")
    return torch.device(device)


def autocast(p: Preset, device: torch.device):
    """bfloat16 autocast for the network when ``p.bf16``, else a no-op context.

    Parameters
    ----------
    p : Preset
    device : torch.device
    """
    validate_preset(p)
    _inputs.instance("device", device, torch.device, "torch.device (see resolve_device)")
    if not p.bf16:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16)


def build_model(p: Preset) -> VDM:
    """The diffusion model of preset ``p``: a :class:`~swingby.diffusion.vdm.VDM` with its conditional U-Net."""
    validate_preset(p)
    net = CondUNet(p.widths, n_res=p.n_res, attention=p.attention, style=p.block, dropout=p.dropout,
                   residual=p.residual)
    return VDM(net, parameterization=p.parameterization, decoder=p.decoder, data_range=p.data_range, sampler=p.sampler)


def cond_first_layers(model: VDM) -> list[torch.nn.Linear]:
    """The linear layers that first read the raw conditioning vector (one shared MLP, or one per block)."""
    _inputs.instance("model", model, VDM, "swingby.diffusion.vdm.VDM")
    net = model.net
    if not hasattr(net, "style"):
        raise ValueError(f"model.net must be a swingby.diffusion.unet.CondUNet, got {type(net).__name__}")
    if net.style == "shared":
        return [net.c_mlp[0]]
    return [m.c_proj[0] for m in net.modules() if hasattr(m, "c_proj")]


def _column_norms(layers, attr: str) -> tuple[float, float]:
    """Norms of the colour and size input columns of ``layers``' weights (``"data"``) or gradients (``"grad"``)."""
    mats = [getattr(lay.weight, attr) for lay in layers]
    if any(m is None for m in mats):
        return float("nan"), float("nan")
    w = torch.cat([m.detach().float() for m in mats], dim=0)
    return float(w[:, :3].norm()), float(w[:, 3].norm())


def _conv_norm(model: VDM, attr: str) -> float:
    """The norm of every convolution's weights (``attr = "data"``) or gradients (``"grad"``)."""
    ws = [getattr(m.weight, attr) for m in model.net.modules() if isinstance(m, torch.nn.Conv2d)]
    ws = [w for w in ws if w is not None]
    return float(torch.sqrt(sum((w.detach().float() ** 2).sum() for w in ws))) if ws else float("nan")


def weight_norms(model: VDM) -> np.ndarray:
    """``(colour, size, conv)`` weight norms of ``model`` (App. D)."""
    c, s = _column_norms(cond_first_layers(model), "data")
    return np.array([c, s, _conv_norm(model, "data")])


class Run:
    """One training run that stops and resumes bit for bit (weights, EMA, optimiser, generator, records).

    Parameters
    ----------
    p : Preset
    seed : int
        Seeds the initial weights, the batches and the diffusion noise.
    device : torch.device
    """

    def __init__(self, p: Preset, seed: int, device: torch.device):
        validate_preset(p)
        _inputs.instance("device", device, torch.device, "torch.device (see resolve_device)")
        self.p, self.seed, self.device = p, _checks.seed("seed", seed), device
        torch.manual_seed(self.seed)
        self.model = build_model(p).to(device)
        if p.init_scale != 1.0:  # a larger (or smaller) initialisation: weights only, no randomness drawn
            with torch.no_grad():
                for w in self.model.parameters():
                    if w.dim() >= 2:
                        w.mul_(p.init_scale)
        self.ema = copy.deepcopy(self.model) if p.ema > 0 else self.model
        # one fused kernel over all parameters (CPU and CUDA), instead of a loop over them
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=p.lr, weight_decay=p.weight_decay, fused=True)
        self._params = list(self.model.parameters())
        self._ema_params = list(self.ema.parameters())
        self._cond_layers = cond_first_layers(self.model)
        self._convs = [m.weight for m in self.model.net.modules() if isinstance(m, torch.nn.Conv2d)]
        self.gen = torch.Generator(device=device).manual_seed(self.seed)
        self.step = 0
        self.records: dict = {"evals": [], "loss": [], "seconds": 0.0}
        self.window = np.zeros(len(LOSS_FIELDS) - 1)  # running sums of the loss window
        self.n_window = 0
        self.loss_every = max(1, p.steps // p.n_loss_records)

    def _one_step(self, images: torch.Tensor, cond: torch.Tensor) -> None:
        """One optimiser step on a random batch, and the loss record when one is due."""
        p = self.p
        idx = torch.randint(0, len(images), (p.batch,), generator=self.gen, device=self.device)
        try:
            with autocast(p, self.device):
                loss, parts = self.model.loss(images[idx], cond[idx], generator=self.gen)
        except FloatingPointError as e:
            raise FloatingPointError(
                f"training diverged at step {self.step} (lr={p.lr}, grad_clip={p.grad_clip}): {e}; "
                "lower the learning rate or clip the gradients") from None
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        g = self._grad_norms()
        if p.grad_clip:
            torch.nn.utils.clip_grad_norm_(self._params, p.grad_clip, foreach=True)
        self.opt.step()
        if p.ema > 0:  # EMA with the usual warm-up, so early checkpoints are not stuck at init
            decay = min(p.ema, (1 + self.step) / (10 + self.step))
            with torch.no_grad():
                torch._foreach_lerp_(self._ema_params, self._params, 1 - decay)
        self.step += 1
        gm = self.model.gamma
        self.window += [float(loss.detach()) / images[0].numel(), parts["diff"], parts["prior"], parts["recon"],
                        float(gm.gamma_min.detach()), float(gm.gamma_max.detach()), *g]
        self.n_window += 1
        if self.step % self.loss_every == 0:
            self.records["loss"].append([self.step, *(self.window / self.n_window)])
            self.window[:] = 0
            self.n_window = 0

    def _grad_norms(self) -> list[float]:
        """``(colour, size, conv)`` gradient norms, from the layers cached at construction."""
        c, s = _column_norms(self._cond_layers, "grad")
        grads = [w.grad for w in self._convs if w.grad is not None]
        conv = float(torch.linalg.vector_norm(torch.stack(torch._foreach_norm(grads)))) if grads else float("nan")
        return [c, s, conv]

    def train_to(self, target: int, images: torch.Tensor, cond: torch.Tensor, check=None) -> None:
        """Train until ``step == target``.

        Parameters
        ----------
        target : int
        images : torch.Tensor (N, 3, H, W)
            Training images in [0, 1].
        cond : torch.Tensor (N, 4)
        check : callable, optional
            Called every 20 steps (it may stop the process).
        """
        target = _checks.integer("target", target, low=self.step, high=self.p.steps)
        _inputs.images("images", images)
        _inputs.batch_cond("cond", cond, images.shape[0], self.model.net.cond_dim)
        if images.shape[2] != self.p.image_size:
            raise ValueError(f"images must be {self.p.image_size}x{self.p.image_size} like the preset, got "
                             f"{tuple(images.shape[2:])}")
        if check is not None and not callable(check):
            raise TypeError(f"check must be a callable or None, got {check!r}")
        self.model.train()  # the evaluation between calls may have switched it to eval
        while self.step < target:
            if check is not None and self.step % 20 == 0:
                check()
            self._one_step(images, cond)

    def state(self) -> dict:
        """Everything needed to resume, as tensors, numbers and lists (loadable with ``weights_only=True``)."""
        return {"model": self.model.state_dict(), "ema": self.ema.state_dict(), "opt": self.opt.state_dict(),
                "gen": self.gen.get_state(), "step": self.step, "records": self.records,
                "window": torch.from_numpy(self.window.copy()), "n_window": self.n_window}

    def load_state(self, st: dict) -> None:
        """Restore ``state`` (raises ``KeyError``/``RuntimeError`` on a foreign state)."""
        self.model.load_state_dict(st["model"])
        self.ema.load_state_dict(st["ema"])
        self.opt.load_state_dict(st["opt"])
        self.gen.set_state(st["gen"].cpu() if self.device.type == "cpu" else st["gen"])
        self.step, self.records = int(st["step"]), st["records"]
        self.window, self.n_window = st["window"].numpy().astype(float), int(st["n_window"])
