"""The register of the paper's claims, one module per chapter, each a tuple of :class:`~swingby.verdicts.Claim`
fixed before the fresh runs that judge them. :func:`fingerprint` hashes the SIM and theory claims with the
verdict rule's constants and the observation and theory thresholds (``tests/test_claims_register.py`` freezes
it); the diffusion and capability modules have their own. Seed ``k`` of a registered check is
``FRESH_SEED_OFFSET + k`` (:func:`fresh_seeds`); the authors' seeds still draw the figures that reproduce theirs.
"""
from __future__ import annotations

from swingby import verdicts
from swingby.claims import (
    beyond_two_concepts,
    jacobian_link,
    observations,
    one_layer_theory,
    ood_checks,
    sim_task,
    topological_order,
    two_layer_theory,
)
from swingby.verdicts import Claim

__all__ = ["CLAIMS", "FRESH_SEED_OFFSET", "fresh_seeds", "fingerprint"]

#: seed k of a registered check is this plus k (the chapters' earlier seeds are all far below it)
FRESH_SEED_OFFSET = 1_000_000

#: every registered claim, chapter by chapter
CLAIMS: tuple[Claim, ...] = (
    *sim_task.CLAIMS, *observations.CLAIMS, *topological_order.CLAIMS, *ood_checks.CLAIMS,
    *one_layer_theory.CLAIMS, *two_layer_theory.CLAIMS, *beyond_two_concepts.CLAIMS,
    *jacobian_link.CLAIMS,
)


def fresh_seeds(n: int, start: int = 0) -> range:
    """The fresh seeds ``FRESH_SEED_OFFSET + start`` to ``FRESH_SEED_OFFSET + start + n - 1``.

    Parameters
    ----------
    n : int
        How many seeds (positive).
    start : int
        Index of the first (non-negative), so that two checks can take disjoint blocks.
    """
    for name, value, least in (("n", n, 1), ("start", start, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    return range(FRESH_SEED_OFFSET + start, FRESH_SEED_OFFSET + start + n)


def claim(key: str, form: str | None = None) -> Claim:
    """The registered claim with this box label (and form, where one box judges two forms)."""
    hits = [c for c in CLAIMS if c.key == key and (form is None or c.form == form)]
    if len(hits) != 1:
        raise ValueError(f"key (and form) must name one registered claim of {sorted({c.key for c in CLAIMS})}, "
                         f"got {key!r}, form {form!r}: {len(hits)} match")
    return hits[0]


def fingerprint() -> str:
    """The register's fingerprint: the rule's constants, the seed offset, the claims, the observation and
    theory thresholds."""
    from swingby.observations import rules as obs_rules
    from swingby.theory import rules as theory_rules
    return verdicts.fingerprint({
        "rule": verdicts.rule_constants(), "seed_offset": FRESH_SEED_OFFSET,
        "claims": CLAIMS, "observations": obs_rules.values(), "theory": theory_rules.values(),
    })
