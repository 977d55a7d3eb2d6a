"""The ``slow`` marker, given in one place: the tests that train, run notebooks, drive a
browser, build the docs or a wheel, or start the CLI in a subprocess,
or fuzz 10^4 decisions per configuration.

``pytest -m "not slow"`` is the quick loop; ``pytest`` (the README's test command) runs
everything.
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
#: single slow tests elsewhere (``file::name``, every parametrization)
SLOW_TESTS = (
    "cli/test_cli_user_errors.py::test_console_script_prints_one_line_and_no_traceback",
    "cli/test_cli_user_errors.py::test_output_cut_short_by_its_reader_is_no_traceback",
    "envs/test_env_single_agent.py::test_maskable_ppo_with_subprocesses",
    "agents/test_tile_obs_policy.py::test_exported_logits_equal_the_torch_policy",
    "testing/test_fuzz.py::test_short_fuzz_finds_nothing",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        where = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
        test = f"{where}::{item.originalname}"
        if test in SLOW_TESTS or any(
            where == p or (p.endswith("/") and where.startswith(p)) for p in SLOW_PATHS
        ):
            item.add_marker(pytest.mark.slow)
