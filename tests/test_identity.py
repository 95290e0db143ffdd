"""Issue 20 item 2: the identity of the result-making code follows behaviour, not bytes.

A docstring or comment edit and a move of a function to another module keep it; a
one-character change to a computation changes it; code that makes no stored number
(plots, analysis) does not enter it.
"""
from __future__ import annotations

import pytest

from swingby.diffusion.runs import driver as S
from swingby.diffusion.runs import identity as I

SOURCES = {name: path.read_text() for name, path in I.SEARCHED.items()}
BASE = I.code_identity(SOURCES)


def _edit(module: str, old: str, new: str, sources=None) -> dict:
    src = dict(sources or SOURCES)
    assert src[module].count(old) == 1, f"{old!r} must occur once in {module}"
    src[module] = src[module].replace(old, new)
    return src


def test_the_sweep_stamps_the_identity_of_the_code_on_disk():
    assert S.code_hash() == I.code_identity() == BASE and len(BASE) == 64
    assert S.code_version()[I.IDENTITY_KEY] == BASE


def test_covered_names_include_every_stage_that_makes_numbers():
    names = {n.split(":")[1] for n in I.covered_names(SOURCES)}
    for stage in ("render", "sample_attributes", "make_dataset", "CondUNet", "VDM", "discretized_gaussian_nll",
                  "Run", "evaluate", "final_repeats", "pixel_measure", "ConceptClassifier", "train_classifier",
                  "class_embeddings", "weight_norms", "PRESETS", "checkpoint_steps", "save_results", "run_one"):
        assert stage in names, stage
    for not_numbers in ("plot_concept_space", "sweep_explorer", "code_version", "code_identity"):
        assert not_numbers not in names


def test_docstring_and_comment_edits_keep_the_identity():
    src = _edit("swingby.diffusion.data", '''    """RGB mean ``(3,)`` of the red (``blue=0``) or blue (``blue=1``) class.''',
                '''    """The RGB mean of the red (``blue=0``) or the blue (``blue=1``) class, reworded.''')
    src = _edit("swingby.diffusion.vdm", "        # antithetic time sampling: one uniform offset, evenly spread times\n",
                "        # antithetic sampling of t (a comment rewritten)\n        # over two lines\n", src)
    src = _edit("swingby.diffusion.training", '"""Training one diffusion model', '"""Training a diffusion model', src)
    assert I.code_identity(src) == BASE


def test_moving_a_function_to_another_module_keeps_the_identity():
    """``_blur_kernel`` moves from ``data`` to a new module that ``data`` imports it from."""
    data = SOURCES["swingby.diffusion.data"]
    start = data.index("def _blur_kernel(")
    end = data.index("\ndef ", start + 1)
    body = data[start:end]
    src = dict(SOURCES)
    src["swingby.diffusion.data"] = (data[:start] + data[end:]).replace(
        "from swingby.diffusion import _inputs\n",
        "from swingby.diffusion import _inputs\nfrom swingby.diffusion.kernels import _blur_kernel\n")
    src["swingby.diffusion.kernels"] = "import numpy as np\n\n\n" + body
    assert "def _blur_kernel" not in src["swingby.diffusion.data"]
    assert "swingby.diffusion.kernels:_blur_kernel" in I.covered_names(src)
    assert I.code_identity(src) == BASE


@pytest.mark.parametrize("module, old, new", [
    ("swingby.diffusion.vdm", "l_diff = 0.5 * dgamma", "l_diff = 0.6 * dgamma"),  # the loss
    ("swingby.diffusion.data", "return 0.45 - cfg.ds / 2 if small", "return 0.46 - cfg.ds / 2 if small"),  # data
    ("swingby.diffusion.vdm", "std = s_s * torch.sqrt(c)", "std = s_s * torch.sqrt(2)"),  # the sampler
    ("swingby.diffusion.presets", "steps=4800,", "steps=4801,"),  # a preset value
    ("swingby.diffusion.unet", "t = (gamma + 5.0) / 15.0 * 1000.0", "t = (gamma + 5.0) / 16.0 * 1000.0"),
    ("swingby.diffusion.runs.evaluation", "10_000 * seed + 100 + k", "10_000 * seed + 101 + k"),  # sample seeds
    ("swingby.diffusion.concept_space", "def pixel_measure(", "def pixel_measure(*_a, "),
])
def test_a_one_character_change_to_a_computation_changes_the_identity(module, old, new):
    assert I.code_identity(_edit(module, old, new)) != BASE


def test_code_that_makes_no_stored_number_is_not_covered():
    src = dict(SOURCES)
    src["swingby.diffusion.fig6.plots"] = SOURCES["swingby.diffusion.fig6.plots"] + "\n\nX_UNUSED = 1\n"
    src["swingby.diffusion.sweep"] = SOURCES["swingby.diffusion.sweep"] + "\n\ndef _unused():\n    return 2\n"
    src["swingby.diffusion.runs.driver"] = _edit("swingby.diffusion.runs.driver", "    return {\"git_commit\": commit,",
                                                 "    commit = commit or None\n    return {\"git_commit\": commit,",
                                                 )["swingby.diffusion.runs.driver"]
    assert I.code_identity(src) == BASE
