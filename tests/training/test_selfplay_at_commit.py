"""``benchmarks/selfplay_at_commit.py`` refuses what it cannot measure with one clear line."""

from __future__ import annotations

import pytest
from helpers.benchmarks import benchmark


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rev", "no-such-commit-xyz"], "--rev 'no-such-commit-xyz' is not a commit"),
        (["--games", "0"], "--games and --rounds must be at least 1"),
        (["--rounds", "-1"], "--games and --rounds must be at least 1"),
        (["--games", "two"], "--games: invalid int value: 'two'"),
    ],
)
def test_bad_arguments_get_one_clear_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        benchmark("selfplay_at_commit").main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
