"""Human play and replay of both games: a local web page (Flask + the package's own
HTML/SVG/JS) and a terminal mode.

Layers: :mod:`.tile_payload` / :mod:`.card_payload` turn a seat's information into the JSON
the page draws; :mod:`.session` holds a game against agents (or a record to replay);
:mod:`.server` serves them; :mod:`.tui` plays in a terminal; the commands are in
:mod:`carcassonne_rl.cli.play`.
"""
