"""The register of the SIM and theory claims (``swingby.claims``) is frozen: its
fingerprint was committed before any of the fresh runs that judge it.

If ``test_register_is_frozen`` fails, a claim, a design choice, a threshold or the verdict
rule changed after the fresh runs were made: judge the changed claim again on new fresh
seeds (another offset), record the old verdict in the audit appendix (``book/audit.md``),
and only then record the new fingerprint here.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from swingby import claims, verdicts

#: the fingerprint committed before the fresh runs
FROZEN_FINGERPRINT = "c1ef26cba3847371"
#: the diffusion and capability registers, frozen before the confirmatory sweep that will judge them
FROZEN_DIFFUSION = {"diffusion": "8fab66313d8c2448", "capability": "806bc1298a0c6d38"}
BOOK = Path(__file__).resolve().parents[1] / "book"
MODULES = ("sim_task", "observations", "topological_order", "ood_checks", "one_layer_theory",
           "two_layer_theory", "beyond_two_concepts", "jacobian_link")
#: a register whose claims are boxed in more than one chapter
CHAPTER_PAGES = {"observations": ("observations", "observations_variants"),
                 "two_layer_theory": ("two_layer_theory", "two_layer_checks"),
                 "beyond_two_concepts": ("beyond_two_concepts", "failure_mode")}


def test_register_is_frozen():
    assert claims.fingerprint() == FROZEN_FINGERPRINT, (
        "the register changed after the fresh runs: judge the change on new fresh seeds, "
        "record the old verdict in book/audit.md, then the new fingerprint here")


@pytest.mark.parametrize("name", sorted(FROZEN_DIFFUSION))
def test_diffusion_registers_are_frozen(name):
    import importlib
    module = importlib.import_module(f"swingby.claims.{name}")
    assert module.fingerprint() == FROZEN_DIFFUSION[name], (
        f"swingby.claims.{name} changed: it must be frozen before the sweep that judges it")


@pytest.mark.parametrize("name", MODULES)
def test_every_claim_is_a_claim_box_of_its_chapter(name):
    module = getattr(claims, name)
    text = "".join((BOOK / f"{page}.md").read_text() for page in CHAPTER_PAGES.get(name, (name,)))
    labels = set(re.findall(r"^:name: (claim-\S+)$", text, re.MULTILINE))
    for c in module.CLAIMS:
        assert c.key in labels, f"{c.key} is registered for {name} but no claim box of its chapter(s) has it"
        assert c.form in verdicts.FORMS and c.quote and c.section and c.unit and c.check and c.wrong_model


def test_claim_keys_are_unique_and_found():
    keys = [(c.key, c.form) for c in claims.CLAIMS]
    assert len(keys) == len(set(keys)), keys
    for key, form in keys:
        assert claims.claim(key, form).key == key
    with pytest.raises(ValueError, match="must name one registered claim"):
        claims.claim("claim-none")


def test_fresh_seeds():
    assert list(claims.fresh_seeds(3)) == [1_000_000, 1_000_001, 1_000_002]
    assert claims.fresh_seeds(2, start=5)[0] == 1_000_005
    for bad in (dict(n=0), dict(n=2.0), dict(n=2, start=-1), dict(n=True)):
        with pytest.raises(ValueError, match="must be an integer"):
            claims.fresh_seeds(**bad)
