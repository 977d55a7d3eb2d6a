"""Execute every notebook in ``notebooks/`` top to bottom and check its key outputs.

Each notebook runs in a temporary copy (its run folders land there; the saved notebooks and
their outputs in the repository are not touched), on a Jupyter kernel started with the very
interpreter that runs pytest (a kernel spec written for ``sys.executable``), so the kernel
sees the installed ``carcassonne_rl`` whatever kernels the machine has registered.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

from jupyter_client.kernelspec import KernelSpecManager  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
KERNEL = "carcassonne-rl-test"
CELL_TIMEOUT_S = 300

# Text that must appear in a notebook's outputs, and how many images it must show.
EXPECTED: dict[str, tuple[list[str], int]] = {
    "01_quickstart.ipynb": (
        ["observation: shape (159, 29, 29)", "action mask: size 206", "Passed API test"],
        3,
    ),
    "02_train_and_evaluate.ipynb": (
        ["| agent | games | win rate", "policy:runs/tile/final_model.zip", "runs/card"],
        2,
    ),
    "03_strategy_analysis.ipynb": (
        ["| agent | games | win rate", "mcts:50", "farmers (field)", "mean margin in wins"],
        4,
    ),
    "04_openspiel.ipynb": (
        [
            "PERFECT_INFORMATION, EXPLICIT_STOCHASTIC",
            "IMPERFECT_INFORMATION, EXPLICIT_STOCHASTIC",
            "observation equal to the env's: True",
            "legal actions equal to the env's mask: True",
            "MCTSBot(10) vs greedy - scores",
            "ISMCTSBot(10) vs greedy - scores",
            "TorchRL rollout: torch.Size([40])",
        ],
        1,
    ),
}
# Notebooks that need an optional extra: the module they import, and the install line.
NEEDS: dict[str, tuple[str, str]] = {
    "04_openspiel.ipynb": ("pyspiel", "pip install -e '.[openspiel]'"),
}


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def output_text(nb) -> str:
    """All text a notebook's cells printed or displayed (streams, markdown, plain text)."""
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("display_data", "execute_result"):
                data = out.get("data", {})
                parts.append(data.get("text/markdown", data.get("text/plain", "")))
    return "\n".join(parts)


def count_images(nb) -> int:
    return sum(
        "image/png" in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", [])
    )


def errors(nb) -> list[str]:
    return [
        f"{out.ename}: {out.evalue}"
        for cell in nb.cells
        for out in cell.get("outputs", [])
        if out.output_type == "error"
    ]


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory) -> Path:
    """A kernel spec that runs ipykernel on this interpreter."""
    root = tmp_path_factory.mktemp("kernels")
    spec_dir = root / KERNEL
    spec_dir.mkdir()
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (carcassonne-rl tests)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return root


def test_every_notebook_has_expectations():
    assert notebook_paths(), f"no notebooks in {NOTEBOOKS}"
    assert {p.name for p in notebook_paths()} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_saved_notebook_has_outputs(name):
    """The repository keeps the notebooks executed, figures included, without errors."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert not errors(nb)
    assert count_images(nb) >= EXPECTED[name][1]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_notebook_executes(name, kernel_dir, tmp_path):
    if name in NEEDS and importlib.util.find_spec(NEEDS[name][0]) is None:
        pytest.skip(f"{name} needs {NEEDS[name][0]} ({NEEDS[name][1]})")
    work = tmp_path / "notebooks"
    work.mkdir()
    path = work / name
    shutil.copy(NOTEBOOKS / name, path)
    nb = nbformat.read(path, as_version=4)
    km = KernelManager(
        kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernel_dir)])
    )
    client = nbclient.NotebookClient(
        nb, km=km, timeout=CELL_TIMEOUT_S, resources={"metadata": {"path": str(work)}}
    )
    t0 = time.perf_counter()
    try:
        client.execute()  # raises CellExecutionError, with the traceback, if a cell fails
    finally:
        if km.has_kernel:  # nbclient leaves a kernel manager it was handed running
            km.shutdown_kernel(now=True)
    print(f"{name}: executed in {time.perf_counter() - t0:.1f} s")
    assert not errors(nb)
    text = output_text(nb)
    needles, images = EXPECTED[name]
    missing = [s for s in needles if s not in text]
    assert not missing, f"{name}: outputs lack {missing}"
    assert count_images(nb) >= images
