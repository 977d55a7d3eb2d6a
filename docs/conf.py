"""Sphinx configuration of the carcassonne-rl documentation (MyST Markdown pages + autodoc).

Build: ``pip install -e ".[docs]"``, then
``sphinx-build -W --keep-going -b html docs docs/_build/html`` (warnings are errors).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO))  # the package of this checkout, installed or not
sys.path.insert(0, str(DOCS))  # import_graph.py

import import_graph  # noqa: E402

import carcassonne_rl  # noqa: E402

project = "carcassonne-rl"
author = "the carcassonne-rl authors"
copyright = "2026, " + author  # noqa: A001 - Sphinx's name
release = version = carcassonne_rl.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.viewcode",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "pretrained/**"]
templates_path = ["_templates"]

# MyST: GitHub-style heading anchors (the pages link to them as GitHub renders them), and
# every local link checked (a link to a missing page, file or anchor is a warning, so an error).
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 4
myst_all_links_external = False
suppress_warnings: list[str] = []

# Cross-references inside docstrings are not checked (nitpicky off): some name objects that
# have no docstring of their own, and third-party types have no inventory offline.
nitpicky = False

# API reference: one page per module (autosummary, recursive), members from the docstrings.
autosummary_generate = True
API_STUBS = DOCS / "_autosummary"  # generated, git-ignored
autosummary_imported_members = False
autodoc_default_options = {
    "members": True,
    "show-inheritance": True,
    "ignore-module-all": True,  # each object is documented once, in the module defining it
}
autodoc_member_order = "bysource"
autodoc_inherit_docstrings = False  # not Gymnasium's or SB3's docstrings, in their syntax
autodoc_typehints = "description"
autodoc_class_signature = "separated"
# The trainers' third-party stacks: autodoc imports their modules with these mocked, so the
# reference builds from the default install plus the docs extra.
autodoc_mock_imports = [
    "flask",
    "werkzeug",
    "ray",
    "torch",
    "stable_baselines3",
    "sb3_contrib",
    "tensorboard",
]

html_theme = "furo"
html_title = "carcassonne-rl"
html_static_path: list[str] = []

# The import-graph picture, drawn from the code at every build (git-ignored folder).
GENERATED = DOCS / "_generated"


def _remove_stale_api_stubs() -> None:
    """Drop the generated page of a module that no longer exists (a page outside every table
    of contents would fail the build)."""
    for stub in API_STUBS.glob("*.rst"):
        path = REPO.joinpath(*stub.stem.split("."))
        if not (path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()):
            stub.unlink()


_remove_stale_api_stubs()


def _draw_import_graph(app) -> None:
    import_graph.draw(GENERATED / "import_graph.png")


# The pages link to source files (``../carcassonne_rl/games/carcassonne/tiles.py``), which
# GitHub shows; on the site such a link goes to the module's API page (with its source).
_SOURCE_LINK = re.compile(r"\]\((?:\.\./)+(carcassonne_rl/[\w/]+)\.py\)")


def _api_page(match: re.Match) -> str:
    module = match.group(1).replace("/", ".").removesuffix(".__init__")
    return f"](/_autosummary/{module})"


def _source_links_to_api_pages(app, docname: str, source: list[str]) -> None:
    source[0] = _SOURCE_LINK.sub(_api_page, source[0])


def setup(app) -> None:
    app.connect("builder-inited", _draw_import_graph)
    app.connect("source-read", _source_links_to_api_pages)
