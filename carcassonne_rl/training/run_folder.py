"""Run folders of the CLI: start, resume or overwrite, with one clear message per mistake.

``train`` and ``main`` never write over a finished or half-finished run silently: a folder
that holds a run needs ``--resume`` (go on with the same settings) or ``--overwrite``
(delete that run and start afresh).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from carcassonne_rl.games.registry import GAMES
from carcassonne_rl.runtime.errors import UserError
from carcassonne_rl.training.train_config import TrainConfig

STATE_FILE = "trainer_state.json"  # as selfplay.STATE_FILE (kept free of the torch import)
# settings a resumed run may change: its length, and the cores and device it runs on
RESUMABLE_CHANGES = ("timesteps", "n_envs", "workers", "device")


def holds_run(folder: Path) -> bool:
    """Whether ``folder`` holds a training run (finished or not)."""
    return (folder / "config.json").exists() or (folder / STATE_FILE).exists()


def saved_config(folder: Path):
    """The config of the run in ``folder`` (a ``TrainConfig``, or an ``AfterstateConfig`` for
    an ``--algo afterstate`` run); ``UserError`` if there is no readable one."""
    path = folder / "config.json"
    if not path.exists():
        raise UserError(f"{folder} holds no run to resume (no config.json)")
    try:
        if json.loads(path.read_text()).get("algo") == "afterstate":
            from carcassonne_rl.training.afterstate.config import AfterstateConfig

            return AfterstateConfig.load(path)
        return TrainConfig.load(path)
    except (ValueError, TypeError, AttributeError) as err:
        raise UserError(f"{path} is not a readable run config: {err}") from None


def config_changes(saved, wanted) -> list[str]:
    """``"field saved -> wanted"`` for every setting that differs (resumable ones aside)."""
    old, new = saved.to_dict(), wanted.to_dict()
    return [
        f"{name} {old.get(name)!r} -> {new.get(name)!r}"
        for name in sorted(set(old) | set(new))
        if name not in RESUMABLE_CHANGES and old.get(name) != new.get(name)
    ]


def prepare(folder: Path, resume: bool, overwrite: bool, flag_hint: str = "") -> bool:
    """Check ``folder`` for a new run (or a resumed one); delete an old run if ``overwrite``.

    Returns whether the run resumes. ``flag_hint`` names, in messages, the options that
    choose another folder (e.g. ``"--out"``)."""
    other = f" or another {flag_hint}" if flag_hint else ""
    if folder.exists() and not folder.is_dir():
        raise UserError(f"{folder} is a file, not a run folder")
    if resume:
        if not (folder / STATE_FILE).exists():
            raise UserError(
                f"nothing to resume in {folder} (no {STATE_FILE}): leave out --resume to start "
                "a new run there"
            )
        try:
            json.loads((folder / STATE_FILE).read_text())
        except ValueError as err:
            raise UserError(
                f"{folder / STATE_FILE} is damaged ({err}): use --overwrite to start afresh"
            ) from None
        return True
    if holds_run(folder):
        if not overwrite:
            raise UserError(
                f"{folder} already holds a run: add --resume to continue it, --overwrite to "
                f"delete it and start afresh{other}"
            )
        shutil.rmtree(folder)
    return False


def check_resume_config(folder: Path, wanted, how: str) -> None:
    """``UserError`` if the run in ``folder`` was trained with other settings than
    ``wanted``; ``how`` says in the message which options set them."""
    changes = config_changes(saved_config(folder), wanted)
    if changes:
        raise UserError(
            f"{folder} was trained with other settings ({'; '.join(changes)}): --resume "
            f"continues it only with the same {how}; use --overwrite to start afresh"
        )


def final_evaluation(folder: Path) -> tuple[int, list[dict]] | None:
    """(timesteps, rows vs each baseline) of the last evaluation of a run, if any."""
    path = folder / "eval_history.json"
    if not path.exists():
        return None
    history = json.loads(path.read_text())
    if not history:
        return None
    last = history[-1]
    rows = [v for v in last.values() if isinstance(v, dict) and "opponent" in v]
    return int(last["timesteps"]), rows


def model_and_config(run: str | Path) -> tuple[Path, dict]:
    """The model file of a run folder (or a model path) and the run's config dict."""
    run = Path(run)
    model = run
    if run.is_dir():
        npz = run / "final_model.npz"
        model = npz if npz.exists() else run / "final_model.zip"
    if run.is_dir() and not model.exists() and (run / "final_model.pt2").exists():
        model = run / "final_model.pt2"  # a run of the rllib backend
    if not model.exists():
        raise UserError(
            f"no model at {model}: give a run folder holding final_model.zip/.npz or a model file"
        )
    for folder in (model.parent, model.parent.parent):
        path = folder / "config.json"
        if path.exists():
            try:
                config = json.loads(path.read_text())
            except ValueError as err:
                raise UserError(f"{path} is not valid JSON: {err}") from None
            if not isinstance(config, dict) or config.get("game") not in GAMES:
                raise UserError(f"{path} names no game ({' or '.join(GAMES)})")
            return model, config
    raise UserError(f"no config.json next to {model}, so its game is unknown")
