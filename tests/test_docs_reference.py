"""The README and the reference pages say what is, not when: no dates, no commit hashes, no
"until/since <date>" (history lives in CHANGELOG.md and the dated research notes); the README
and the agents page stay short; the README keeps the two set-up commands; every research
note is listed in the notes' index."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
RESEARCH = DOCS / "research"
# research notes, training records and generated reports (a leaderboard names model files by
# their sha256 prefixes, which read like commit hashes)
NOT_REFERENCE = ("research", "pretrained", "leaderboard", "_build", "_generated", "_autosummary")

#: a date (2026-11-28) or a month (2026-11)
DATE = re.compile(r"\b(?:19|20)\d\d-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01]))?\b")
#: 7-40 hex digits with a digit and a letter a-f: what a commit hash looks like in prose
HASH = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
CHECKOUT = re.compile(r"git (?:checkout|switch|show|reset)\s+[^\s`]+")
#: a hash named as one, even all digits: "commit 5842621", "5842621~1"
NAMED_HASH = re.compile(r"\bcommit\s+[0-9a-f]{7,40}\b|\b[0-9a-f]{7,40}(?=[~^])")
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
SINCE = re.compile(
    r"\b(?:until|since|before|after)\s+(?:\d{4}-\d\d|(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"{MONTH}|{MONTH}\.?\s+\d{{1,2}}\b|{MONTH}\s+\d{{4}})",
    flags=re.IGNORECASE,
)
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")  # a link's target: a research note's file name is dated

#: the README's two set-up commands, as .ci/run runs the second
MAIN_JOB = 'pip install torch==2.13.0 && pip install -e ".[train]" && carcassonne-rl main'
TESTS = (
    'pip install torch==2.13.0 && pip install -e ".[dev,ray,docs,openspiel]" && ruff check . && '
    "pytest -q -n auto --dist loadgroup"
)


def reference_pages() -> list[Path]:
    """README.md and every page of the docs outside the research notes and training records."""
    pages = sorted(p for p in DOCS.rglob("*.md") if not set(NOT_REFERENCE) & set(p.parts))
    return [REPO / "README.md", *pages]


def history_in(text: str) -> list[str]:
    """What in ``text`` is history: dates, commit hashes, ``git checkout`` lines, since/until."""
    text = LINK_TARGET.sub("]()", text)
    found = []
    for pattern in (DATE, HASH, NAMED_HASH, CHECKOUT, SINCE):
        found += [m.group(0) for m in pattern.finditer(text)]
    return found


def test_the_history_check_catches_history() -> None:
    assert history_in("`pretrained` until 2026-11-28 played it") == ["2026-11-28", "until 2026-11"]
    assert history_in("the card game's `pretrained` since 2026-11") == ["2026-11", "since 2026-11"]
    assert history_in("replay at `git checkout 5842621~1`") == ["5842621", "git checkout 5842621~1"]
    assert history_in("commit 7aed695 added it") == ["7aed695", "commit 7aed695"]
    assert history_in("until commit 5842621") == ["commit 5842621"]
    assert history_in("measured since Nov 29") == ["since Nov 29"]
    assert history_in("the default until November 2026") == ["until November 2026"]
    clean = (
        "`tile-net-v2` wins 98.9% of 400 games; message order 81234567; a shared feature is "
        "added; the sha256 of each file; seed123-20260101-120000.json; "
        "[a note](research/2026-11-29-card-netleaf.md); since the seeds fix every game; "
        "since decisions 3 and 4 are free"
    )
    assert history_in(clean) == []


@pytest.mark.parametrize("page", reference_pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_reference_pages_hold_no_history(page: Path) -> None:
    assert history_in(page.read_text()) == [], page.relative_to(REPO)


def test_the_reference_pages_are_found() -> None:
    names = {p.relative_to(REPO).as_posix() for p in reference_pages()}
    assert {"README.md", "docs/agents.md", "docs/arena.md", "docs/training.md"} <= names
    assert not any(name.startswith(("docs/research/", "docs/pretrained/")) for name in names)


def test_the_readme_and_the_agents_page_stay_short() -> None:
    assert len((REPO / "README.md").read_text().splitlines()) <= 150
    assert len((DOCS / "agents.md").read_text().splitlines()) <= 300


def test_the_readme_holds_the_two_set_up_commands() -> None:
    lines = (REPO / "README.md").read_text().splitlines()
    assert MAIN_JOB in lines
    assert TESTS in lines
    ci = (REPO / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci.replace("pip install -q", "pip install") in TESTS


def test_every_research_note_is_listed_in_the_index() -> None:
    index = (RESEARCH / "index.md").read_text()
    notes = sorted(p for p in RESEARCH.glob("*.md") if p.name not in ("index.md", "moved.md"))
    assert notes
    for note in notes:
        assert re.match(r"\d{4}-\d\d-\d\d-[a-z0-9-]+\.md$", note.name), note.name
        assert f"]({note.name})" in index, note.name
