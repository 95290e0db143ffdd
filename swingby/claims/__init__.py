"""The register of the paper's claims that the SIM and theory chapters judge.

Each module here belongs to one chapter and lists its claims as
:class:`~swingby.verdicts.Claim` entries: the paper's sentence, its form, the unit, the
check, the wrong model, and the design (seeds, settings, thresholds). Together with the
verdict rule's constants and the thresholds of :mod:`swingby.observations.rules` and
:mod:`swingby.theory.rules`, they are hashed by :func:`fingerprint`, which was committed
(``tests/test_claims_register.py``) before any of the fresh runs below was made.

The checks are judged on fresh seeds: seed ``k`` of a registered check is
``FRESH_SEED_OFFSET + k`` (:func:`fresh_seeds`), a stream no chapter had used. The
authors' own seeds still draw the figures that reproduce theirs.
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

    Returns
    -------
    range
    """
    for name, value, least in (("n", n, 1), ("start", start, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    return range(FRESH_SEED_OFFSET + start, FRESH_SEED_OFFSET + start + n)


def claim(key: str, form: str | None = None) -> Claim:
    """The registered claim with this key (and form, where one box judges two forms).

    Parameters
    ----------
    key : str
        A claim box label, e.g. ``"claim-obs-order"``.
    form : str, optional
        The form, needed only where the box holds claims of two forms.

    Returns
    -------
    Claim
    """
    hits = [c for c in CLAIMS if c.key == key and (form is None or c.form == form)]
    if len(hits) != 1:
        raise ValueError(f"key (and form) must name one registered claim of {sorted({c.key for c in CLAIMS})}, "
                         f"got {key!r}, form {form!r}: {len(hits)} match")
    return hits[0]


def fingerprint() -> str:
    """The fingerprint of the register: the rule's constants, the fresh-seed offset, every
    claim, and the thresholds of the observation and theory checks.

    Returns
    -------
    str
    """
    from swingby.observations import rules as obs_rules
    from swingby.theory import rules as theory_rules
    return verdicts.fingerprint({
        "rule": verdicts.rule_constants(), "seed_offset": FRESH_SEED_OFFSET,
        "claims": CLAIMS, "observations": obs_rules.values(), "theory": theory_rules.values(),
    })
