"""The wheel and the sdist hold everything: installed into a fresh venv (no repo on the
path), the package runs an episode of each env and ``carcassonne-rl --help``, and plays
``pretrained`` in the arena from its shipped models."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("packaging")  # one worker builds the wheel once

EPISODES = """
import numpy as np
import carcassonne_rl
from carcassonne_rl.envs import carcassonne_v0, cardcassonne_v0

print(carcassonne_rl.__file__)
for make in (carcassonne_v0.env, cardcassonne_v0.env):
    env = make(players=2, render_mode="rgb_array")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.game_state.is_over and env.render().ndim == 3
print("episodes done")
"""


def _run(argv: list, cwd: Path, env: dict | None = None) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _source_copy(dest: Path) -> Path:
    """The files a clone has (tracked, or new and not ignored), copied to ``dest``."""
    names = _run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], REPO)
    for name in names.splitlines():
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            (dest / name).write_bytes(source.read_bytes())
    return dest


def _build(source: Path, kind: str, out: Path) -> Path:
    """Build a ``wheel`` or ``sdist`` of ``source`` with setuptools' backend (offline)."""
    code = f"import sys; from setuptools import build_meta as b; print(b.build_{kind}(sys.argv[1]))"
    name = _run([sys.executable, "-c", code, str(out)], source).strip().splitlines()[-1]
    return out / name


def _package_files(names: list[str]) -> set[str]:
    return {n for n in names if n.startswith("carcassonne_rl/")}


class Installed:
    """A wheel built from a copy of the clone, installed alone into a fresh venv."""

    def __init__(self, root: Path) -> None:
        self.source = _source_copy(root / "clone")
        dist = root / "dist"
        dist.mkdir()
        self.wheel = _build(self.source, "wheel", dist)
        self.sdist = _build(self.source, "sdist", dist)
        # a fresh venv; the dependencies (torch, numba, ...) come from this interpreter's
        # site-packages through a .pth file (a venv's --system-site-packages would give the
        # base interpreter's instead), the package itself only from the wheel
        self.venv = root / "venv"
        _run([sys.executable, "-m", "venv", str(self.venv)], root)
        self.python = self.venv / "bin" / "python"
        code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        site = Path(_run([self.python, "-c", code], root).strip())
        (site / "outer_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        _run([self.python, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
              str(self.wheel)], root)  # fmt: skip
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.work = root / "elsewhere"  # a folder outside the repo
        self.work.mkdir()

    def run(self, argv: list) -> str:
        return _run(argv, self.work, self.env)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    return Installed(tmp_path_factory.mktemp("packaging"))


def test_wheel_and_sdist_install_and_run_in_a_fresh_venv(installed, tmp_path) -> None:
    wheel, sdist, source, venv = installed.wheel, installed.sdist, installed.source, installed.venv
    # the sdist builds the same wheel: nothing the package needs is missing from it
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    from_sdist = _build(unpacked, "wheel", tmp_path / "unpacked")
    with zipfile.ZipFile(wheel) as a, zipfile.ZipFile(from_sdist) as b:
        assert _package_files(a.namelist()) == _package_files(b.namelist())
        shipped = _package_files(a.namelist())
    tracked = {
        str(p.relative_to(source))
        for p in (source / "carcassonne_rl").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert tracked <= shipped, tracked - shipped
    models = {n for n in shipped if n.startswith("carcassonne_rl/agents/pretrained_models/")}
    assert {"carcassonne_rl/py.typed", "carcassonne_rl/agents/pretrained_models/models.json"} <= (
        shipped
    )
    assert len([n for n in models if n.endswith(".npz")]) >= 2  # both games' networks

    printed = installed.run([installed.python, "-c", EPISODES])
    where = Path(printed.splitlines()[0]).resolve()
    assert where.is_relative_to(venv.resolve()), where
    assert not where.is_relative_to(REPO)
    assert printed.splitlines()[-1] == "episodes done"
    usage = installed.run([venv / "bin" / "carcassonne-rl", "--help"])
    assert "usage: carcassonne-rl" in usage and "arena" in usage


def test_the_wheel_says_its_version_and_keeps_flask_in_the_play_extra(installed) -> None:
    version = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    code = "import carcassonne_rl; print(carcassonne_rl.__version__)"
    assert installed.run([installed.python, "-c", code]).strip() == version.group(1)
    with zipfile.ZipFile(installed.wheel) as wheel:
        (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = wheel.read(name).decode()
    requires = re.findall(r"^Requires-Dist: (.+)$", metadata, re.M)
    flask = [r for r in requires if r.lower().startswith("flask")]
    assert flask and all('extra == "play"' in r for r in flask), flask
    assert "Provides-Extra: play" in metadata


WHERE = """
from importlib import resources
import carcassonne_rl
print(carcassonne_rl.__file__)
print(resources.files("carcassonne_rl.agents") / "pretrained_models")
"""


def test_the_installed_wheel_plays_pretrained_in_the_arena(installed) -> None:
    module, models = installed.run([installed.python, "-c", WHERE]).splitlines()
    for path in (Path(module).resolve(), Path(models).resolve()):  # the venv's copy
        assert path.is_relative_to(installed.venv.resolve()) and not path.is_relative_to(REPO)
    out = installed.work / "report"
    argv = [installed.venv / "bin" / "carcassonne-rl", "arena", "--game", "carcassonne",
            "--agents", "pretrained", "--opponents", "greedy", "--deals", "1", "--seed", "0",
            "--workers", "1", "--no-progress", "--bootstrap", "0", "--out", str(out)]  # fmt: skip
    printed = installed.run(argv)
    assert "2 games: 1 deal per lineup x 2 seat rotations, 1 lineup" in printed
    report = json.loads((out / "arena.json").read_text())
    assert report["games"] == 2 and report["agents"] == ["pretrained"]
    assert report["entries"]["pretrained"]["games"] == 2
    assert (out / "arena.md").is_file() and (out / "games.csv").is_file()
