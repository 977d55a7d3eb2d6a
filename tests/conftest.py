"""The ``slow`` marker, given in one place: the tests that train, run notebooks, drive a
browser, build the docs or a wheel, or start the CLI in a subprocess.

``pytest -m "not slow"`` is the quick loop; ``pytest`` (the README's test command) runs
everything. A single slow test elsewhere carries ``@pytest.mark.slow`` itself.
"""

from __future__ import annotations

from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

#: folders and files (relative to tests/) whose every test is slow
SLOW_PATHS = (
    "training/",
    "notebooks/",
    "play/test_play_browser.py",
    "cli/test_train_cli.py",
    "test_docs_site.py",
    "test_packaging.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
        if any(where == p or (p.endswith("/") and where.startswith(p)) for p in SLOW_PATHS):
            item.add_marker(pytest.mark.slow)
