"""The play page in a real browser (headless Chromium driven by Selenium): both games are
played to the end by clicking the board, an illegal click is refused, a reload resumes the
game, the end-of-game summary and the new game button work, and the saved record is
replayed to its end. Every page is opened from the URL with the launch's token (as
``carcassonne-rl play`` prints it; one test runs the command itself), and the browser must
report no Content-Security-Policy violation.

Without Chromium and its driver the tests skip (outside CI; with ``CI=true`` they fail).
Set ``CARCASSONNE_RL_SCREENSHOTS=DIR`` to keep the two mid-game screenshots (the README's
pictures come from ``DIR=docs/images``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from carcassonne_rl.cli.play import launch_url
from carcassonne_rl.play.server import create_app
from carcassonne_rl.play.session import PlaySession, ReplaySession

try:
    import selenium  # noqa: F401
except ImportError:  # pragma: no cover - the dev extra installs it
    if os.environ.get("CI") == "true":
        raise
    pytest.skip("selenium is not installed (pip install -e '.[dev]')", allow_module_level=True)
from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def browser():
    binary = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        why = (
            "headless Chromium or chromedriver not found (apt-get install chromium chromium-driver)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    options = Options()
    options.binary_location = binary
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,860"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(driver_path))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


class Served:
    """An app served on a free loopback port in a background thread."""

    def __init__(self, app) -> None:
        from werkzeug.serving import make_server

        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def open_url(self, path: str) -> str:
        """``path`` with the launch token, as ``carcassonne-rl play`` prints it."""
        return launch_url("127.0.0.1", self.server.server_port, path, self.app.config["PLAY_TOKEN"])

    def close(self) -> None:
        self.server.shutdown()


def _no_csp_violation(driver) -> None:
    """The browser's console has no Content-Security-Policy complaint (and no JS error)."""
    entries = [e["message"] for e in driver.get_log("browser")]
    bad = [m for m in entries if "Content Security Policy" in m or "Uncaught" in m]
    assert not bad, bad


def _body(driver, name: str) -> str | None:
    return driver.execute_script(f"return document.body.dataset.{name};")


def _wait_loaded(driver) -> None:
    WebDriverWait(driver, 20, 0.02).until(lambda d: _body(d, "version") is not None)


def _click_and_wait(driver, element) -> None:
    """Click ``element``; wait until the page has drawn the answer to the move."""
    before = _body(driver, "version")
    element.click()
    WebDriverWait(driver, 30, 0.02).until(
        lambda d: (
            _body(d, "busy") != "1"
            and (_body(d, "version") != before or d.find_element(By.ID, "message").is_displayed())
        )
    )
    message = driver.find_element(By.ID, "message")
    assert not (message.is_displayed() and message.get_attribute("class") == "message"), (
        message.text
    )


def _screenshot(driver, tmp_path: Path, name: str) -> Path:
    """Save a screenshot and check it is not blank (many colours, real contrast)."""
    path = tmp_path / f"{name}.png"
    driver.save_screenshot(str(path))
    pixels = np.asarray(Image.open(path).convert("RGB"))
    colours = len(np.unique(pixels.reshape(-1, 3), axis=0))
    assert colours > 40 and pixels.std() > 20, f"{name}: the page looks blank"
    keep = os.environ.get("CARCASSONNE_RL_SCREENSHOTS")
    if keep and name.startswith("play_"):  # the README's two pictures
        Path(keep).mkdir(parents=True, exist_ok=True)
        image = Image.open(path).convert("RGB").quantize(colors=128)
        image.save(Path(keep) / f"{name}.png", optimize=True)
    return path


def _refused_click(driver, element, words: str, session: PlaySession) -> None:
    """An illegal click shows a message and changes nothing."""
    before = session.state.to_json()
    version = _body(driver, "version")
    element.click()
    message = driver.find_element(By.ID, "message")
    WebDriverWait(driver, 5, 0.02).until(lambda d: message.is_displayed())
    assert words in message.text
    assert _body(driver, "version") == version and session.state.to_json() == before


def _reload_resumes(driver, session: PlaySession) -> None:
    version = _body(driver, "version")
    driver.refresh()
    _wait_loaded(driver)
    assert _body(driver, "version") == version == str(len(session.state.history))
    moves = driver.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(moves) == len(session.log)


def _replay_to_end(driver, record_path: Path, tmp_path: Path, name: str) -> None:
    import json

    record = json.loads(record_path.read_text())
    served = Served(create_app(replay=ReplaySession(record, record_path.name)))
    try:
        driver.get(served.open_url("/replay"))
        _wait_loaded(driver)
        assert "token" not in driver.current_url  # the token moved into a cookie
        steps = len(record["actions"])
        assert driver.find_element(By.ID, "step-count").text == str(steps)
        step = driver.find_element(By.ID, "jump-step")
        for expected in (1, 2, 3):
            driver.find_element(By.ID, "next").click()
            WebDriverWait(driver, 10, 0.02).until(
                lambda d, e=expected: step.get_attribute("value") == str(e)
            )
        assert "current" in driver.find_elements(By.CSS_SELECTOR, "#log li")[2].get_attribute(
            "class"
        )
        step.clear()
        step.send_keys(str(steps // 2))
        driver.find_element(By.ID, "jump").click()
        WebDriverWait(driver, 10, 0.02).until(
            lambda d: d.find_element(By.ID, "jump-step").get_attribute("value") == str(steps // 2)
        )
        _screenshot(driver, tmp_path, f"replay_{name}")
        driver.find_element(By.ID, "last").click()
        WebDriverWait(driver, 10, 0.02).until(lambda d: _body(d, "over") == "1")
        assert driver.find_element(By.ID, "jump-step").get_attribute("value") == str(steps)
        assert "Game over" in driver.find_element(By.ID, "status").text
        text = driver.find_element(By.ID, "log").text
        assert record["actions"][-1] in text
        assert driver.find_element(By.ID, "summary").is_displayed()
        assert not driver.find_element(By.ID, "btn-new").is_displayed()  # no new game in replay
        _no_csp_violation(driver)
    finally:
        served.close()


def _nearness(cell) -> tuple[int, int, int]:
    """Order of the highlighted squares: nearest the start tile first (a compact board)."""
    x, y = int(cell.get_attribute("data-x")), int(cell.get_attribute("data-y"))
    return (x * x + y * y, x, y)


def test_tile_game_in_the_browser(browser, tmp_path):
    # seed 1: with the clicks below the person scores during play, so The Messages' figure
    # choice buttons are clicked too
    session = PlaySession(
        "carcassonne", 2, ("messages", "labyrinth"), 0, ["random"], seed=1, save_dir=tmp_path
    )
    games = {"t": session}
    served = Served(create_app(games))
    d = browser
    try:
        d.get(served.open_url("/game/t?delay=0"))
        _wait_loaded(d)
        _screenshot(d, tmp_path, "tile_start")
        start_tile = d.find_element(By.CSS_SELECTOR, 'g.tile[data-x="0"][data-y="0"]')
        _refused_click(d, start_tile, "already holds a tile", session)
        view_box = "return document.getElementById('board').getAttribute('viewBox');"
        before = d.execute_script(view_box)
        d.find_element(By.ID, "zoom-in").click()
        assert before and d.execute_script(view_box) != before
        d.find_element(By.ID, "fit").click()  # the whole board in view again
        assert d.execute_script(view_box) == before
        decisions = followers = choices = 0
        while _body(d, "over") != "1":
            assert _body(d, "mine") == "1"
            phase = _body(d, "phase")
            if phase == "place_tile":
                min(d.find_elements(By.CSS_SELECTOR, ".legal-cell"), key=_nearness).click()
                if decisions % 7 == 0:  # turn the tile through its legal rotations, back to 0
                    turns = d.execute_script("return TileView.selection.rotations.length;")
                    for _ in range(turns):
                        d.find_element(By.ID, "btn-rotate").click()
                    assert d.execute_script("return TileView.selection.index;") == 0
                _click_and_wait(d, d.find_element(By.ID, "btn-place"))
            elif phase == "place_follower":
                spots = d.find_elements(By.CSS_SELECTOR, ".spot:not([data-action^=field])")
                if spots and decisions % 3 != 0:
                    followers += 1
                    _click_and_wait(d, spots[0])
                else:
                    _click_and_wait(d, d.find_element(By.ID, "btn-none"))
            elif phase == "message_follower":
                _click_and_wait(d, d.find_elements(By.CSS_SELECTOR, ".spot")[0])
            else:  # The Messages: figure or message choice
                choices += 1
                _click_and_wait(d, d.find_elements(By.CSS_SELECTOR, "button.choice")[0])
            decisions += 1
            if decisions == 10:  # take the last decision back, then go on
                version = int(_body(d, "version"))
                _click_and_wait(d, d.find_element(By.ID, "btn-undo"))
                after = int(_body(d, "version"))
                assert after < version and after == len(session.state.history)
            if decisions == 40:
                _reload_resumes(d, session)
                _screenshot(d, tmp_path, "play_carcassonne")
        assert session.state.is_over and followers > 0 and choices > 0
        assert "Game over" in d.find_element(By.ID, "status").text
        _screenshot(d, tmp_path, "tile_end")
        saved = list(tmp_path.glob("carcassonne-*.json"))
        assert len(saved) == 1
        _summary_then_new_game(d, games, session)
    finally:
        served.close()
    _replay_to_end(d, saved[0], tmp_path, "carcassonne")


def test_card_game_in_the_browser(browser, tmp_path):
    # seat 1 deals the first round: with seed 4 a joker turns up in the set-up, for the person
    session = PlaySession("cardcassonne", 2, (), 1, ["random"], seed=4, save_dir=tmp_path)
    games = {"c": session}
    served = Served(create_app(games))
    d = browser
    try:
        d.get(served.open_url("/game/c?delay=0"))
        _wait_loaded(d)
        _screenshot(d, tmp_path, "card_start")
        decisions = setups = 0
        shot = None
        while _body(d, "over") != "1":
            assert _body(d, "mine") == "1"
            phase = _body(d, "phase")
            if phase == "turn" and decisions == 3:
                row = d.find_element(By.CSS_SELECTOR, ".row")
                _refused_click(d, row, "pick a card from your hand", session)
            if phase == "setup_joker":
                setups += 1
                _click_and_wait(d, d.find_elements(By.CSS_SELECTOR, ".row.target")[0])
            elif phase == "turn":
                cards = d.find_elements(By.CSS_SELECTOR, ".hand-card.playable")
                token = d.find_elements(By.CSS_SELECTOR, ".follower-token")
                if token and (not cards or decisions % 9 == 4):
                    token[0].click()
                else:
                    cards[decisions % len(cards)].click()
                targets = d.find_elements(By.CSS_SELECTOR, ".row.target")
                _click_and_wait(d, targets[decisions % len(targets)])
            else:  # joker species, or keep / 10 points
                _click_and_wait(d, d.find_elements(By.CSS_SELECTOR, "button.choice")[-1])
            decisions += 1
            if decisions == 30:
                _reload_resumes(d, session)
            hand = d.find_elements(By.CSS_SELECTOR, ".hand-card")
            if hand and decisions == 5:  # card names readable: hover text and the legend
                title = hand[0].get_attribute("title")
                assert any(w in title for w in ("person", "building", "animal", "joker")), title
                legend = d.find_element(By.ID, "card-legend")
                legend.click()
                assert "green (field) animal: pigs" in legend.text
            if decisions >= 30 and not shot and len(hand) >= 4:
                shot = _screenshot(d, tmp_path, "play_cardcassonne")
        assert session.state.is_over and setups > 0 and shot
        assert "Game over" in d.find_element(By.ID, "status").text
        _screenshot(d, tmp_path, "card_end")
        saved = list(tmp_path.glob("cardcassonne-*.json"))
        assert len(saved) == 1
        _summary_then_new_game(d, games, session)
    finally:
        served.close()
    _replay_to_end(d, saved[0], tmp_path, "cardcassonne")


def _summary_then_new_game(driver, games: dict, session: PlaySession) -> None:
    """The finished game shows its summary; "new game" deals a new game, same options."""
    summary = driver.find_element(By.ID, "summary")
    assert summary.is_displayed()
    rows = driver.find_elements(By.CSS_SELECTOR, "#final-scores tr")[1:]
    points = sorted((int(s) for s in session.state.scores), reverse=True)
    assert [int(r.find_elements(By.TAG_NAME, "td")[2].text) for r in rows] == points
    assert "record saved to" in summary.text
    (old_id,) = [key for key, value in games.items() if value is session]
    driver.find_element(By.ID, "btn-new-summary").click()

    def url_game_id(d) -> str | None:
        """The game id in the address bar once it names a game other than the old one."""
        url = d.current_url
        if "/game/" not in url:
            return None
        game_id = url.split("/game/")[1].split("?")[0].split("#")[0]
        return game_id if game_id != old_id and game_id in games else None

    new_id = WebDriverWait(driver, 20, 0.05).until(url_game_id)
    _wait_loaded(driver)
    assert list(games) == [new_id] and len(new_id) >= 20 and _body(driver, "over") == "0"
    fresh = games[new_id]
    assert fresh.options == session.options and fresh.seed != session.seed
    assert not driver.find_element(By.ID, "summary").is_displayed()
    _no_csp_violation(driver)


def test_the_printed_url_opens_the_game(browser, tmp_path):
    """``carcassonne-rl play`` itself: the URL it prints (with the token) opens the page."""
    command = [sys.executable, "-m", "carcassonne_rl.cli.main", "play", "--game", "cardcassonne"]
    command += ["--no-browser", "--port", "0", "--step-delay", "0", "--save-dir", str(tmp_path)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("serving on http://127.0.0.1:"), line
        url = line.split()[2]
        assert "?token=" in url and len(url.split("?token=")[1]) >= 43  # 256 bits
        browser.get(url)
        _wait_loaded(browser)
        assert "token" not in browser.current_url and _body(browser, "game") == "cardcassonne"
        assert browser.find_element(By.ID, "btn-new").is_displayed()
        _no_csp_violation(browser)
    finally:
        process.terminate()
        process.wait(10)
