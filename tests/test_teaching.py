"""Rules for a book an instructor can teach from (issue 24): code cells and code blocks
that do not scroll sideways on any page, exercises with a difficulty mark and at least
three per chapter, no exercise answered in a visible cell, every Greek letter of a
chapter's math on the notation page, the teaching page and the glossary in the table of
contents."""
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CHAPTERS = ("sim_task", "observations", "observations_variants", "ood_checks", "topological_order",
            "one_layer_theory", "two_layer_theory", "two_layer_checks", "jacobian_link",
            "beyond_two_concepts", "failure_mode", "open_questions", "open_questions_diffusion",
            "open_questions_training", "diffusion",
            "capability")
MAX_CODE_LINE = 88
EXERCISE = re.compile(r"^```\{exercise\}(.*)$", re.M)
MARK = re.compile(r"^\s*(★{1,3})(\s|$)")
FENCE = re.compile(r"^(`{3,})([^\n`]*)\n(.*?)^\1[ \t]*$", re.S | re.M)
GREEK = re.compile(r"\\(alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|"
                   r"lambda|mu|nu|xi|pi|varpi|rho|varrho|sigma|varsigma|tau|upsilon|phi|varphi|chi|psi|"
                   r"omega|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega)(?![A-Za-z])")
MATH = re.compile(r"\$\$(.*?)\$\$|\$([^$\n]+)\$|```\{math\}(.*?)```", re.S)
PAGES = sorted(p.stem for p in BOOK.glob("*.md"))


def exercise_titles(text):
    return EXERCISE.findall(text)


HIDDEN = {"remove-cell", "remove-input"}  # code a reader never sees


def long_code_lines(md):
    nb = jupytext.read(md)
    return [line for cell in nb.cells if cell.cell_type == "code"
            and not HIDDEN & set(cell.metadata.get("tags", []))
            for line in cell.source.splitlines() if len(line) > MAX_CODE_LINE]


def shown_text(md):
    """A page's source without the code cells a reader never sees."""
    nb = jupytext.read(md)
    return "\n".join(cell.source for cell in nb.cells
                     if not (cell.cell_type == "code" and HIDDEN & set(cell.metadata.get("tags", []))))


def long_block_lines(text):
    """Lines over MAX_CODE_LINE in the fenced code blocks of a page (bash, ipython3, ...),
    not counting directives other than code cells (whose options are no code)."""
    out = []
    for fence in FENCE.finditer(text):
        kind = fence.group(2).strip()
        if kind.startswith("{") and not kind.startswith("{code-cell"):
            continue
        body = fence.group(3)
        if kind.startswith("{code-cell") and re.search(r"^(:tags:|tags:).*\b(remove-cell|remove-input)\b",
                                                       body, flags=re.M):
            continue  # code a reader never sees
        if kind.startswith("{code-cell"):  # drop the cell's options (--- ... ---)
            body = re.sub(r"\A---\n.*?^---\n", "", body, flags=re.S | re.M)
            body = "\n".join(line for line in body.splitlines() if not line.startswith(":tags:"))
        out += [line for line in body.splitlines() if len(line) > MAX_CODE_LINE]
    return out


def visible_exercise_cells(md):
    """Code cells of the Exercises section outside a solution-start/solution-end gate:
    an exercise's answer computed where the reader sees it."""
    nb = jupytext.read(md)
    out, in_exercises, gated = [], False, False
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for heading in re.findall(r"^##\s+(.*)$", cell.source, re.M):
                in_exercises = heading.strip().lower().startswith("exercises")
            gates = re.findall(r"\{solution-(start|end)\}", cell.source)
            if gates:
                gated = gates[-1] == "start"
        elif in_exercises and not gated:
            out.append(cell.source[:60])
    return out


def math_greek(text):
    return {g for m in MATH.finditer(text) for g in GREEK.findall("".join(x or "" for x in m.groups()))}


def math_capitals(text):
    """Single capital Latin letters used as symbols in a page's math (not inside a
    command's name or argument such as \\mathcal{L}, \\mathbb R or \\text{px}, nor the Frobenius
    norm's subscript F)."""
    out = set()
    for m in MATH.finditer(text):
        math = "".join(x or "" for x in m.groups())
        math = re.sub(r"\\(text|mathrm|operatorname|mathcal|mathbb)\s*(\{[^}]*\}|[A-Za-z])|\\[A-Za-z]+|_F\b",
                      " ", math)
        out |= set(re.findall(r"(?<![a-z])([A-Z])(?![a-z])", math))
    return out


def test_the_rules_catch_what_they_should(tmp_path):
    assert [bool(MARK.match(t)) for t in exercise_titles(
        "```{exercise} ★★\n:label: a\n```\n```{exercise}\n:label: b\n```\n```{exercise} hard\n```")] == [
        True, False, False]
    md = tmp_path / "c.md"
    md.write_text("---\njupytext:\n  formats: md:myst\n---\n\n```{code-cell} ipython3\nx = 1"
                  + " " * 90 + "\n```\n")
    assert len(long_code_lines(md)) == 1
    assert len(long_block_lines("```bash\n" + "x" * 89 + "\n```\n")) == 1
    assert not long_block_lines("```{figure} a.png\n" + "x" * 89 + "\n```\n")
    gated = tmp_path / "g.md"
    gated.write_text("---\njupytext:\n  formats: md:myst\n---\n\n## Exercises\n\n"
                     "```{solution-start} e\n```\n\n```{code-cell} ipython3\nx = 1\n```\n\n"
                     "```{solution-end}\n```\n\n```{code-cell} ipython3\ny = 2\n```\n")
    assert visible_exercise_cells(gated) == ["y = 2"]
    assert math_greek(r"$\mu_p$ and $\tau^2$, $$\rho$$, not \sigma") == {"mu", "tau", "rho"}
    assert math_capitals(r"$W = UU^\top$, $\|X\|_F$, $\mathcal{L}$, $n_{\text{Px}}$") == {"W", "U", "X"}


def test_the_chapters_are_the_books():
    toc = (ROOT / "_toc.yml").read_text()
    assert set(re.findall(r"book/(\w+)", toc)) >= set(CHAPTERS)


@pytest.mark.parametrize("name", CHAPTERS)
def test_code_lines_do_not_scroll_sideways(name):
    long = long_code_lines(BOOK / f"{name}.md")
    assert not long, f"{name}.md: {len(long)} code line(s) over {MAX_CODE_LINE} characters: {long[:3]}"


@pytest.mark.parametrize("name", PAGES)
def test_code_blocks_of_every_page_do_not_scroll_sideways(name):
    long = long_block_lines((BOOK / f"{name}.md").read_text())
    assert not long, f"{name}.md: {len(long)} code line(s) over {MAX_CODE_LINE} characters: {long[:3]}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_no_exercise_is_answered_in_a_visible_cell(name):
    visible = visible_exercise_cells(BOOK / f"{name}.md")
    assert not visible, f"{name}.md: code cells in the Exercises outside a solution: {visible}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_notation_page_has_every_greek_letter_of_the_chapter(name):
    missing = math_greek((BOOK / f"{name}.md").read_text()) - math_greek((BOOK / "notation.md").read_text())
    assert not missing, f"{name}.md uses symbols the notation page does not list: {sorted(missing)}"


@pytest.mark.parametrize("name", CHAPTERS)
def test_the_notation_page_has_every_capital_letter_of_the_chapter(name):
    missing = math_capitals(shown_text(BOOK / f"{name}.md")) - math_capitals((BOOK / "notation.md").read_text())
    assert not missing, f"{name}.md uses symbols the notation page does not list: {sorted(missing)}"


def test_the_notation_page_has_the_books_own_symbols():
    text = (BOOK / "notation.md").read_text()
    for symbol in ("$n_c$", "$d'$", "$\\tau$", "$\\rho$", "$\\hat{x}$", "$a_p$", "$\\theta$"):
        assert symbol in text, f"notation.md does not list {symbol}"


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
