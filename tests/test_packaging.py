"""The wheel and the sdist hold everything: installed into a fresh venv (no repo on the
path), the package runs an episode of each env and ``carcassonne-rl --help``."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

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


def test_wheel_and_sdist_install_and_run_in_a_fresh_venv(tmp_path) -> None:
    source = _source_copy(tmp_path / "clone")
    dist = tmp_path / "dist"
    dist.mkdir()
    wheel = _build(source, "wheel", dist)
    sdist = _build(source, "sdist", dist)
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

    # a fresh venv; the dependencies (torch, numba, ...) come from this interpreter's
    # site-packages through a .pth file, the package itself only from the wheel
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path)
    python = venv / "bin" / "python"
    site = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     tmp_path).strip())  # fmt: skip
    (site / "outer_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    work = tmp_path / "elsewhere"
    work.mkdir()
    printed = _run([python, "-c", EPISODES], work, clean)
    installed = Path(printed.splitlines()[0]).resolve()
    assert installed.is_relative_to(venv.resolve()), installed
    assert not installed.is_relative_to(REPO)
    assert printed.splitlines()[-1] == "episodes done"
    usage = _run([venv / "bin" / "carcassonne-rl", "--help"], work, clean)
    assert "usage: carcassonne-rl" in usage and "arena" in usage
