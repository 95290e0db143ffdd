"""The audit appendix's rule history reads every re-judged row's word now from the status
page's records."""
from __future__ import annotations

import pytest

from swingby import audit, verdicts

NOW = set(verdicts.WORDS) | {"illustration", "exploratory"}


def test_every_row_of_the_history_is_on_the_status_page():
    rows = audit.history("earlier rule") + audit.history("re-judged")
    assert len(rows) == len(audit.EARLIER) + len(audit.REJUDGED)
    for h in rows:
        assert h.earlier in set(verdicts.WORDS) | {"illustration"} and h.now in NOW and h.change, h


def test_every_diffusion_and_capability_row_of_the_earlier_sweep_is_on_the_status_page():
    rows = audit.history("earlier sweep")
    assert len(rows) == len(audit.EARLIER_SWEEP)
    for h in rows:
        assert h.earlier in verdicts.WORDS and h.now in NOW and h.change, h


def test_every_row_changed_after_the_reading_is_on_the_status_page():
    rows = audit.history("after reading")
    assert [h.row for h in rows] == list(audit.AFTER_READING)
    for h in rows:
        assert h.earlier in verdicts.WORDS and h.now in set(verdicts.WORDS) | {"illustration"} and h.change, h
        assert h.now != h.earlier, h


def test_history_names_its_tables():
    with pytest.raises(ValueError, match="earlier rule"):
        audit.history("later")
