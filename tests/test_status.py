"""The status page's rows: one stored record per row, written by exactly one chapter,
checked by it and rendered by the page (swingby.status)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from swingby import status, verdicts

ROOT = Path(__file__).resolve().parents[1]
KEYS = [k for keys in status.SECTIONS.values() for k in keys]


def _row(**change):
    fields = dict(key="fig3", name="Fig. 3", shows="a | b", chapter="{ref}`ch-observations`",
                  word="reproduced", evidence="in 3 of 4 runs",
                  parts=[status.Part.of("", verdicts.judge("possibility", 3, 4, 0, 4))],
                  checks=["claim-obs-swingby"])
    return status.Row(**{**fields, **change})


def test_every_row_has_a_stored_record_and_every_record_a_row():
    assert len(KEYS) == len(set(KEYS))
    stored = sorted(p.stem for p in status.RECORDS.glob("*.json"))
    assert stored == sorted(KEYS)
    for key in KEYS:
        row = status.load(key)
        assert row.key == key and status.section_of(key)


def test_every_row_is_recorded_by_exactly_one_chapter():
    sources = {p.name: p.read_text() for p in (ROOT / "book").glob("*.md")}
    for key in KEYS:
        writers = [name for name, text in sources.items() if re.search(rf'key="{re.escape(key)}"', text)]
        assert len(writers) == 1, (key, writers)


def test_the_status_pages_render_every_section_and_hold_no_word_of_their_own():
    pages = {name: (ROOT / "book" / name).read_text() for name in ("status.md", "status_beyond.md")}
    for section in status.SECTIONS:
        assert sum(f'table("{section}")' in page for page in pages.values()) == 1, section
    for name, page in pages.items():
        assert not re.search(r"^\| .* \| .* \|$", page, flags=re.M), f"{name}: the tables come from the records"
    assert "findings()" in pages["status.md"]


def test_a_run_of_parts_with_one_form_and_wrong_model_reads_as_one():
    parts = [status.Part.of(f"s{k}", verdicts.judge("subtle", k, 1000, 0, 1000)) for k in (238, 8, 14)]
    parts.append(status.Part.of("aligned", verdicts.judge("typical", 30, 31, 0, 31)))
    parts.append(status.Part.of("bend", verdicts.judge("typical", 29, 31, 0, 31)))
    cell = _row(parts=parts, checks=["claim-obs-order", "claim-two-fig5-stages"]).cell()
    assert "238, 8 and 14 of 1000" in cell and "s238: " not in cell  # three parts read as one
    assert "30 of 31" in cell and "29 of 31" in cell  # two parts stay apart
    assert "<claim-obs-order>" in cell and "<claim-two-fig5-stages>" in cell


def test_the_findings_read_their_numbers_from_the_records():
    from swingby.findings import findings, sentences

    found = sentences()
    assert len(found) >= 10 and all(s.startswith("**") for s in found)
    order = status.load("order").parts[0]
    assert f"{order.k} of {order.n}" in found[0] and status.load("order").word in found[0]
    assert findings().data.count("\n- ") == len(found) - 1


def test_record_checks_the_stored_row_and_writes_it_on_request(tmp_path, monkeypatch):
    monkeypatch.setattr(status, "RECORDS", tmp_path)
    monkeypatch.setenv(status.MODE_VAR, "check")
    with pytest.raises(ValueError, match="no stored row"):
        status.record(_row())
    monkeypatch.setenv(status.MODE_VAR, "write")
    assert status.record(_row()) == _row()
    assert json.loads((tmp_path / "fig3.json").read_text())["word"] == "reproduced"
    monkeypatch.setenv(status.MODE_VAR, "check")
    assert status.record(_row()) == _row()
    with pytest.raises(ValueError, match="stale.*evidence"):
        status.record(_row(evidence="in 2 of 4 runs"))
    monkeypatch.setenv(status.MODE_VAR, "yes")
    with pytest.raises(ValueError, match="SWINGBY_RECORDS"):
        status.record(_row())


def test_a_row_is_validated_and_its_cell_escapes_the_tables_bar(tmp_path, monkeypatch):
    for bad in (dict(key="nope"), dict(word="fine"), dict(evidence=""), dict(checks=[""]),
                dict(parts=[("a", "guess", 1, 2, None, None, None, None, "reproduced")])):
        with pytest.raises(ValueError):
            _row(**bad)
    with pytest.raises(ValueError, match="row"):
        status.record("fig3")
    assert "**reproduced**" in _row().cell() and "3 of 4 vs 0 of 4" in _row().cell()
    assert "(" not in _row(word="illustration", parts=[], checks=[]).cell()  # no counts, no links
    monkeypatch.setattr(status, "RECORDS", tmp_path)
    monkeypatch.setattr(status, "SECTIONS", {"figures": ("fig3",)})
    monkeypatch.setenv(status.MODE_VAR, "write")
    status.record(_row())
    assert "a \\| b" in status.table("figures").data
    assert status.word_of("Fig.") == "reproduced"
    with pytest.raises(ValueError, match="section"):
        status.table("tables")
