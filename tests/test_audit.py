"""The audit appendix's rule history reads every re-judged row from the status page."""
from __future__ import annotations

from swingby import audit, verdicts


def test_every_row_of_the_history_is_on_the_status_page():
    words = set(verdicts.WORDS) | {"illustration"}
    rows = audit.rule_history() + audit.rejudged()
    assert len(rows) == len(audit.EARLIER) + len(audit.REJUDGED)
    for h in rows:
        assert h.earlier in words and h.now in words and h.change, h


def test_history_reads_a_given_page(tmp_path):
    page = tmp_path / "status.md"
    page.write_text("| Fig. 10 | x | y | partly (possibility: ...) |\n")
    [row] = audit._history({"Fig. 10": ("reproduced", "why")}, page)
    assert row == audit.HistoryRow("Fig. 10", "reproduced", "partly", "why")


def test_every_diffusion_and_capability_row_of_the_earlier_sweep_is_on_the_status_page():
    words = set(verdicts.WORDS) | {"exploratory"}
    rows = audit.sweep_history()
    assert len(rows) == len(audit.EARLIER_SWEEP)
    for h in rows:
        assert h.earlier in verdicts.WORDS and h.now in words and h.change, h


def test_every_row_changed_after_the_reading_is_on_the_status_page():
    rows = audit.after_reading()
    assert [h.row for h in rows] == list(audit.AFTER_READING)
    for h in rows:
        assert h.earlier in verdicts.WORDS and h.now in set(verdicts.WORDS) | {"illustration"} and h.change, h
        assert h.now != h.earlier, h
