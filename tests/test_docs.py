"""The docs hold what they promise: the rules in the repo (nothing outside it), the tile
table and the decisions as the code has them, working links and anchors, tables that render,
Python examples that run and shell commands that the real command line accepts."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from carcassonne_rl.cli.main import build_parser
from carcassonne_rl.games.carcassonne.tiles import CITY, FIELD, KIND_NAMES, ROAD, TILE_TYPES
from carcassonne_rl.games.cardcassonne import DECISIONS

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
RULES = DOCS / "rules"
OUTSIDE = "shared" + "/"  # spelled in two parts so that this file passes its own check
GENERATED = ("_build", "_generated", "_autosummary")
SKIP_MARK = "<!-- docs-test: skip -->"  # on the line above a code block: not run here


def _pages() -> list[Path]:
    """The README and every Markdown page of the docs (not the build's output)."""
    pages = sorted(p for p in DOCS.rglob("*.md") if not set(GENERATED) & set(p.parts))
    return [REPO / "README.md", *pages]


PAGES = _pages()
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", flags=re.MULTILINE | re.DOTALL)


def _code_blocks(page: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line number, text) of the fenced blocks in one of ``languages``, skip-marked left out."""
    text = page.read_text()
    blocks = []
    for match in FENCE.finditer(text):
        if match.group(1).strip() not in languages:
            continue
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if before.strip() != SKIP_MARK:
            blocks.append((text.count("\n", 0, match.start()) + 1, match.group(2)))
    return blocks


def _prose(page: Path) -> str:
    """The page without its fenced code blocks."""
    return FENCE.sub("", page.read_text())


def test_nothing_points_outside_the_repo() -> None:
    folders = ["README.md", "docs", "carcassonne_rl", "tests", "notebooks"]
    found = subprocess.run(
        ["grep", "-rnI", "--exclude-dir=__pycache__", "--exclude-dir=_build", OUTSIDE, *folders],
        cwd=REPO, capture_output=True, text=True,
    )  # fmt: skip
    assert found.returncode == 1, found.stdout  # grep: 1 = no line found


def _tile_row(tile) -> str:
    features = []
    for segment in tile.segments:
        kind = KIND_NAMES[segment.kind]
        if segment.kind in (CITY, ROAD):
            pennant = " (pennant)" if segment.pennant else ""
            features.append(f"{kind} {'+'.join(segment.sides)}{pennant}")
        elif segment.kind == FIELD:
            cities = " & ".join(f"city {'+'.join(tile.segments[c].sides)}" for c in segment.cities)
            features.append(
                f"field {' '.join(segment.halves)}" + (f" next to {cities}" * bool(cities))
            )
        else:
            features.append(kind)
    return f"| {tile.letter} | {tile.count} | {' '.join(tile.edges)} | {'; '.join(features)} |"


def test_the_tile_table_of_the_rules_is_the_engines() -> None:
    text = (RULES / "carcassonne.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| [A-Y] \| \d+ \|", line)]
    assert rows == [_tile_row(t) for t in TILE_TYPES]


def test_every_card_game_decision_is_listed() -> None:
    text = (RULES / "cardcassonne.md").read_text()
    listed = re.findall(r"^\| `(\w+)` \|", text, flags=re.MULTILINE)
    assert listed == list(DECISIONS)


def test_every_file_with_a_decision_is_linked_from_the_rules() -> None:
    docs = (RULES / "carcassonne.md").read_text() + (RULES / "cardcassonne.md").read_text()
    games = REPO / "carcassonne_rl" / "games"
    with_decisions = [p for p in games.rglob("*.py") if "Decision" in p.read_text()]
    assert with_decisions
    for path in with_decisions:
        assert f"]({Path('../..') / path.relative_to(REPO)})" in docs, path


# --- links and anchors ----------------------------------------------------------------------


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading (MyST gives the same with ``myst_heading_anchors``)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip())  # a link: its text
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The heading anchors of a Markdown page (repeated headings get -1, -2, ...)."""
    found: set[str] = set()
    for line in _prose(page).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            slug = github_slug(heading.group(1))
            n, unique = 0, slug
            while unique in found:
                n += 1
                unique = f"{slug}-{n}"
            found.add(unique)
    return found


LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_slugs_are_githubs() -> None:
    assert github_slug("Card-game notation (`carcassonne_rl.games.cardcassonne`)") == (
        "card-game-notation-carcassonne_rlgamescardcassonne"
    )
    assert github_slug("Why not expert iteration / AlphaZero") == (
        "why-not-expert-iteration--alphazero"
    )
    assert github_slug('4. The Messages (optional: `expansions=("messages",)`)') == (
        "4-the-messages-optional-expansionsmessages"
    )


def broken_links(page: Path, root: Path = REPO) -> list[str]:
    """The relative links of a page that point at no file, out of ``root``, or at no heading
    of the page they name (so that the links work on GitHub as on the site)."""
    broken = []
    for target in LINK.findall(_prose(page)):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif root not in file.parents and file != root:
            broken.append(f"{target} (outside the repository)")
        elif anchor and (file.suffix != ".md" or anchor not in anchors(file)):
            broken.append(f"{target} (no such heading)")
    return broken


@pytest.fixture(scope="module")
def generated_pictures() -> None:
    """What the docs build draws before it reads the pages (the import-graph picture that
    docs/layout.md shows), so that links to it resolve in a fresh clone too."""
    spec = importlib.util.spec_from_file_location("docs_import_graph", DOCS / "import_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.draw(DOCS / "_generated" / "import_graph.png")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_links_of_the_docs_resolve(page: Path, generated_pictures: None) -> None:
    assert broken_links(page) == [], page.relative_to(REPO)


def test_the_link_check_catches_broken_links(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading!\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#a-code-heading) [ok](#page) [ok](https://example.org)\n"
        "[gone](missing.md) [no heading](other.md#nope) [no own heading](#nope)\n"
        "```\n[in code](ignored.md)\n```\n"
    )
    assert broken_links(page, root=tmp_path) == [
        "missing.md (no such file)",
        "other.md#nope (no such heading)",
        "#nope (no such heading)",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_markdown_tables_are_not_split_by_blank_lines(page: Path) -> None:
    lines = page.read_text().splitlines()
    for i, line in enumerate(lines):
        # a table row right after a blank line must start a table (header + separator)
        if line.startswith("|") and i > 0 and not lines[i - 1].strip():
            follows = lines[i + 1] if i + 1 < len(lines) else ""
            assert re.match(r"\|[-:| ]+\|$", follows), f"{page.name}:{i + 1}: {line}"


# --- code that runs -------------------------------------------------------------------------

PYTHON_BLOCKS = [
    pytest.param(page, line, code, id=f"{page.relative_to(REPO)}:{line}")
    for page in PAGES
    for line, code in _code_blocks(page, ("python",))
]


def test_the_pages_show_python_examples() -> None:
    pages = {param.values[0].name for param in PYTHON_BLOCKS}
    assert {"README.md", "getting_started.md", "envs.md", "agents.md", "engine_api.md"} <= pages


@pytest.mark.parametrize(("page", "line", "code"), PYTHON_BLOCKS)
def test_the_python_examples_of_the_docs_run(page, line, code, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # nothing they write lands in the repo
    source = "\n" * line + code  # tracebacks name the page's own line numbers
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(page), "exec"), {"__name__": "__docs__"})


# --- shell commands that the tools accept ---------------------------------------------------

SHELL = ("bash", "sh", "shell", "console")


def _extras() -> set[str]:
    text = (REPO / "pyproject.toml").read_text()
    section = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    return set(re.findall(r"^([\w-]+) = \[", section, flags=re.MULTILINE))


def shell_commands(block: str) -> list[list[str]]:
    """The simple commands of a shell block: continuations joined, comments dropped, split
    at ``&&``, ``||``, ``;`` and ``|``, leading ``VAR=value`` and ``nice -n N`` removed."""
    commands = []
    for line in block.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for token in [*lexer, "&&"]:
            if token in ("&&", "||", ";", "|", "&"):
                while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                    words.pop(0)
                if words[:1] == ["nice"]:
                    words = words[3:] if words[1:2] == ["-n"] else words[1:]
                if words:
                    commands.append(words)
                words = []
            else:
                words.append(token)
    return commands


def check_command(words: list[str]) -> None:
    """Raise AssertionError if a command shown to users could not work as written."""
    program, args = words[0], words[1:]
    if program == "carcassonne-rl":
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                build_parser().parse_args(args)
            except SystemExit as stop:
                assert stop.code == 0, f"{shlex.join(words)}: {err.getvalue().strip()}"
    elif args and (program == "bash" or program.startswith("python") and args[0].endswith(".py")):
        assert (REPO / args[0]).is_file(), f"{shlex.join(words)}: no file {args[0]}"
    elif program == "pytest":
        for before, arg in zip(["", *args], args, strict=False):
            # not the value of an option (a marker, a keyword, xdist's workers and schedule)
            if not arg.startswith("-") and before not in ("-m", "-k", "-n", "--dist"):
                path = arg.split("::")[0]
                assert (REPO / path).exists(), f"{shlex.join(words)}: no path {path}"
    elif program == "pip" and "-e" in args:
        spec = args[args.index("-e") + 1]
        extras = re.fullmatch(r"\.(?:\[([\w,-]+)\])?", spec)
        assert extras, f"{shlex.join(words)}: installs {spec!r}, not this project"
        unknown = set(filter(None, (extras.group(1) or "").split(","))) - _extras()
        assert not unknown, f"{shlex.join(words)}: no extra {sorted(unknown)} in pyproject.toml"


SHELL_BLOCKS = [
    pytest.param(page, line, block, id=f"{page.relative_to(REPO)}:{line}")
    for page in PAGES
    for line, block in _code_blocks(page, SHELL)
]


@pytest.mark.parametrize(("page", "line", "block"), SHELL_BLOCKS)
def test_the_shell_commands_of_the_docs_are_valid(page, line, block) -> None:
    for words in shell_commands(block):
        check_command(words)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_inline_commands_of_the_docs_are_valid(page: Path) -> None:
    """Inline ``carcassonne-rl ...`` invocations with options (not bare command names)."""
    for span in re.findall(r"`(carcassonne-rl [^`]+)`", _prose(page)):
        if "--" in span:
            check_command(shlex.split(span.replace("\n", " ")))


def test_the_command_checks_catch_bad_commands() -> None:
    bad = [
        "carcassonne-rl arena --game carcassonne --agentz greedy",  # misspelt option
        "carcassonne-rl train --game go --out runs/x",  # bad choice
        "carcassonne-rl bench env --env carcassonne_v0 --seconds -1",  # bad value
        "python benchmarks/no_such_script.py",
        "pytest -q tests/no_such_test.py",
        'pip install -e ".[dev,nosuchextra]"',
    ]
    for line in bad:
        with pytest.raises(AssertionError):
            for words in shell_commands(line):
                check_command(words)
    good = 'pip install -e ".[dev,ray,docs]" && ruff check . && pytest -q  # the CI command'
    assert shell_commands(good) == [
        ["pip", "install", "-e", ".[dev,ray,docs]"],
        ["ruff", "check", "."],
        ["pytest", "-q"],
    ]
    for words in shell_commands(good):
        check_command(words)
