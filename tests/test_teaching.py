"""Rules for a book an instructor can teach from (issue 24): code cells that do not
scroll sideways, exercises with a difficulty mark and at least three per chapter, the
teaching page and the glossary in the table of contents."""
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = ("sim_task", "observations", "ood_checks", "topological_order", "one_layer_theory",
            "two_layer_theory", "jacobian_link", "beyond_two_concepts", "open_questions", "diffusion",
            "capability")
MAX_CODE_LINE = 88
EXERCISE = re.compile(r"^```\{exercise\}(.*)$", re.M)
MARK = re.compile(r"^\s*(★{1,3})(\s|$)")


def exercise_titles(text):
    return EXERCISE.findall(text)


def long_code_lines(md):
    nb = jupytext.read(md)
    return [line for cell in nb.cells if cell.cell_type == "code"
            for line in cell.source.splitlines() if len(line) > MAX_CODE_LINE]


def test_the_rules_catch_what_they_should(tmp_path):
    assert [bool(MARK.match(t)) for t in exercise_titles(
        "```{exercise} ★★\n:label: a\n```\n```{exercise}\n:label: b\n```\n```{exercise} hard\n```")] == [
        True, False, False]
    md = tmp_path / "c.md"
    md.write_text("---\njupytext:\n  formats: md:myst\n---\n\n```{code-cell} ipython3\nx = 1"
                  + " " * 90 + "\n```\n")
    assert len(long_code_lines(md)) == 1


def test_the_chapters_are_the_books():
    toc = (ROOT / "_toc.yml").read_text()
    assert set(re.findall(r"book/(\w+)", toc)) >= set(CHAPTERS)


@pytest.mark.parametrize("name", CHAPTERS)
def test_code_lines_do_not_scroll_sideways(name):
    long = long_code_lines(BOOK / f"{name}.md")
    assert not long, f"{name}.md: {len(long)} code line(s) over {MAX_CODE_LINE} characters: {long[:3]}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_every_exercise_has_a_difficulty_mark(name):
    titles = exercise_titles((BOOK / f"{name}.md").read_text())
    bare = [t for t in titles if not MARK.match(t)]
    assert not bare, f"{name}.md: exercises without a difficulty mark (★, ★★ or ★★★): {bare}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_at_least_three_exercises_per_chapter(name):
    n = len(exercise_titles((BOOK / f"{name}.md").read_text()))
    assert n >= 3, f"{name}.md has {n} exercise(s), fewer than three"


def test_the_teaching_page_and_the_glossary_are_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text()
    assert "file: book/teaching" in toc and "file: book/glossary" in toc
    assert (BOOK / "teaching.md").exists() and "{glossary}" in (BOOK / "glossary.md").read_text()
