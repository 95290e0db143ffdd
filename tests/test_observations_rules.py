"""The rules of the SIM observation checks are frozen before the seeds they judge. If
``test_rules_are_frozen`` fails, a rule changed after the data: the chapter must show the
result under the old and the new rule before the constant here is updated."""
from __future__ import annotations

import dataclasses

import pytest

from swingby import verdicts
from swingby.diffusion import rules as DR
from swingby.observations import rules as R

#: the fingerprint of OBS_RULES as committed before the chapters' seeds were run
FROZEN_FINGERPRINT = "40afde66849b345b"


def test_rules_are_frozen():
    assert verdicts.fingerprint(R.OBS_RULES) == FROZEN_FINGERPRINT, (
        "a rule in swingby/observations/rules.py changed: show the result under the old and the new rule "
        "in the chapter, then record the new fingerprint here")


def test_rules_cannot_be_changed_in_place():
    with pytest.raises(dataclasses.FrozenInstanceError):
        R.OBS_RULES.rise = 0.1


def test_same_level_as_the_diffusion_rules():
    assert R.OBS_RULES.alpha == DR.RULES.alpha and R.OBS_RULES.power == DR.RULES.power


def test_fingerprint_reads_values_not_identity():
    assert verdicts.fingerprint(R.ObsRules()) == FROZEN_FINGERPRINT
    assert verdicts.fingerprint(R.ObsRules(rise=0.1)) != FROZEN_FINGERPRINT
    assert R.values() == dataclasses.asdict(R.OBS_RULES)
