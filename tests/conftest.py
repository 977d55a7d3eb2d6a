"""The ``slow`` marker, given in one place: the tests that train, run notebooks, drive a
browser, build the docs or a wheel, or start the CLI in a subprocess,
or fuzz 10^4 decisions per configuration.

``pytest -m "not slow"`` is the quick loop; ``pytest`` (the README's test command) runs
everything.

With pytest-xdist (``pytest -n 2 --dist loadgroup``, as CI runs), the tests that start Ray
(a private instance or a ``ray start`` cluster on loopback) share one group, so one worker
runs them one after another: a ``ray.init()`` could otherwise join another test's cluster.
The two docs files share another: both draw the import-graph picture into docs/_generated.
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


#: files whose tests start Ray: one xdist group, run by one worker in turn
RAY_FILES = (
    "cli/test_ray_address.py",
    "training/test_afterstate_ray.py",
    "training/test_card_afterstate.py",
    "training/test_card_expert_iteration.py",
    "training/test_distill_ray.py",
    "training/test_expert_iteration.py",
    "training/test_expert_iteration_ray.py",
    "training/test_expert_loop.py",
    "training/test_ray_backend.py",
    "training/test_ray_cluster.py",
)


#: files that write the same files of the repository: one xdist group
DOCS_FILES = ("test_docs.py", "test_docs_site.py")


@pytest.hookimpl(tryfirst=True)  # before xdist's, which reads the groups into the node ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    grouped: list[pytest.Item] = []
    for item in items:
        where = Path(str(item.path)).resolve().relative_to(TESTS).as_posix()
        if where in RAY_FILES:
            item.add_marker(pytest.mark.xdist_group("ray"))
            grouped.append(item)
        elif where in DOCS_FILES:
            item.add_marker(pytest.mark.xdist_group("docs"))
            grouped.append(item)
        test = f"{where}::{item.originalname}"
        if test in SLOW_TESTS or any(
            where == p or (p.endswith("/") and where.startswith(p)) for p in SLOW_PATHS
        ):
            item.add_marker(pytest.mark.slow)
    # the groups first: with xdist each is one long unit of work, which a worker should
    # start at once rather than leave the other workers idle at the end
    first = set(grouped)
    items[:] = grouped + [item for item in items if item not in first]
