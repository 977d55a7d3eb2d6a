"""Fields (farmers): at the end, 3 points per COMPLETED city the field borders, each field
scored on its own (one city can count for several fields, even for the same player).

Tiles used (printed N E S W; half-edges NNW NNE ENE ESE SSE SSW WSW WNW turn by 2 per r):
  E = C F F F, field {ENE ESE SSE SSW WSW WNW} borders city N.
      E r2 = F F C F: city S; field {WSW WNW NNW NNE ENE ESE} (canonical field:NNW).
  H = C F C F, two separate cities N and S; field {ENE ESE WSW WNW} borders both
      (canonical field:ENE).
  U r0 = F R F R: north field {WNW NNW NNE ENE} (field:NNW), south field {ESE SSE SSW WSW}.
  D(0,0): north field {ENE WNW} borders the city N; south field borders no city.
"""


def test_farmer_scores_3_for_a_completed_city(start, play, ev):
    # E r2 at (0,-1) closes D's city (2 tiles, nobody's knight -> nobody scores it).
    # Farmer of seat 0 on E's field, which borders that completed city -> 3 at the end.
    s = start("E")
    play(s, "E 0,-1 r2", "field:NNW")
    assert s.is_over
    fields = ev(s, kind="field")
    assert len(fields) == 1 and fields[0].player == 0 and fields[0].points == 3
    assert fields[0].final
    assert ev(s, kind="city") == []
    assert s.scores.tolist() == [3, 0]


def test_field_bordering_two_completed_cities(start, play, ev):
    # T1 seat 0: H r0 at (0,-1): S city meets D's city -> {D, H south} complete (no knight).
    #            Farmer on H's field (borders both of H's cities).
    # T2 seat 1: E r2 at (0,-2): S city meets H's N city -> {H north, E} complete.
    # E(0,-2)'s field and D's fields do not touch H's field (E/W neighbours of H are empty).
    # End: H's field borders 2 completed cities -> 2 x 3 = 6.
    s = start("HE")
    play(s, "H 0,-1 r0", "field:ENE", "E 0,-2 r2", "none")
    assert s.is_over
    fields = ev(s, kind="field")
    assert sum(e.points for e in fields if e.player == 0) == 6
    assert s.scores.tolist() == [6, 0]


def test_field_gets_nothing_for_an_incomplete_city(start, play, ev):
    # U r0 at (1,0): its north field joins D's north field (U's WNW meets D's ENE), which
    # borders D's city.  That city is never completed -> the farmer scores 0.
    s = start("U")
    play(s, "U 1,0 r0", "field:NNW")
    assert s.is_over
    assert [e for e in ev(s, kind="field") if e.points > 0] == []
    assert s.scores.tolist() == [0, 0]


def test_field_counts_only_the_completed_one_of_two_cities(start, play, ev):
    # H r0 at (0,-1): H's S city closes D's city; H's N city stays open.
    # The farmer's field borders both: 3 for the completed one, 0 for the open one.
    s = start("H")
    play(s, "H 0,-1 r0", "field:WSW")  # any half-edge of the field names it
    assert s.is_over
    assert s.scores.tolist() == [3, 0]


def test_one_city_counts_for_two_fields_of_the_same_player(start, play, ev):
    # T1 seat 0: U r0 at (1,0), farmer on its north field = D's north field {ENE WNW}
    #            (borders D's city).
    # T2 seat 1: U r0 at (-1,0): its north field also joins that field (no farmer).
    # T3 seat 0: E r2 at (0,-1) closes D's city (2 tiles, no knight: nobody scores it).
    #            E's own field (W, N, E sides) touches no other tile's field ((+-1,-1) and
    #            (0,-2) are empty), so it is a separate, free field: second farmer of seat 0.
    # End: field 1 borders the completed city -> 3; field 2 borders it too -> 3; total 6.
    # (The road D + two U's has no follower.)
    s = start("UUE")
    play(s, "U 1,0 r0", "field:NNW")
    play(s, "U -1,0 r0")
    assert "field:NNW" not in [str(a) for a in s.legal_actions()]  # the same, occupied field
    play(s, "none")
    play(s, "E 0,-1 r2", "field:NNW")
    assert s.is_over
    fields = [e for e in ev(s, kind="field") if e.points > 0]
    assert sorted((e.player, e.points) for e in fields) == [(0, 3), (0, 3)]
    assert s.scores.tolist() == [6, 0]


def test_city_counts_once_for_a_field_that_borders_it_on_two_tiles(start, play, ev):
    # T1 seat 0: U r0 at (1,0), farmer on its north field (joined to D's north field, which
    #            borders D's city).
    # T2 seat 1: B at (1,-1): its S halves meet U(1,0)'s NNW/NNE -> the same field grows.
    # T3 seat 0: E r2 at (0,-1): S city closes D's city (nobody's knight); E's field touches
    #            B(1,-1) on E's E side (ENE/ESE meet B's WNW/WSW) -> it is the SAME field,
    #            so no farmer may go there.
    # One field, one completed city (bordered on D and on E): 3 points, not 6.
    s = start("UBE")
    play(s, "U 1,0 r0", "field:NNW", "B 1,-1 r0", "none", "E 0,-1 r2")
    legal = [str(a) for a in s.legal_actions()]
    assert "field:NNW" not in legal and "city:S" in legal
    play(s, "none")
    assert s.is_over
    fields = [e for e in ev(s, kind="field") if e.points > 0]
    assert [(e.player, e.points) for e in fields] == [(0, 3)]
    assert s.scores.tolist() == [3, 0]


def test_one_city_counts_for_two_fields_of_different_players(start, play, ev):
    # T1 seat 0: U r0 at (1,0), farmer on the north field F1 (= D's north field, borders
    #            D's city).
    # T2 seat 1: E r2 at (0,-1) closes D's city; farmer of seat 1 on E's field F2, which
    #            touches no other field ((+-1,-1), (0,-2) empty).
    # T3 seat 0: U r0 at (-1,0), no follower (its north field joins F1).
    # End: F1 -> 3 for seat 0, F2 -> 3 for seat 1.
    s = start("UEU")
    play(s, "U 1,0 r0", "field:NNW", "E 0,-1 r2", "field:NNW", "U -1,0 r0", "none")
    assert s.is_over
    fields = [e for e in ev(s, kind="field") if e.points > 0]
    assert sorted((e.player, e.points) for e in fields) == [(0, 3), (1, 3)]
    assert s.scores.tolist() == [3, 3]


def test_field_tie_after_joining_two_farmed_fields(start, play, ev):
    # As above, but T3 seat 0 places B at (1,-1), which joins F1 (its S side meets
    # U(1,0)'s north field) and F2 (its W side meets E(0,-1)'s E side field): one field,
    # one farmer each -> tie, both score 3 for the one completed city (once).
    # No farmer may go on B's field (occupied); the cloister is free.
    s = start("UEB")
    play(s, "U 1,0 r0", "field:NNW", "E 0,-1 r2", "field:NNW", "B 1,-1 r0")
    legal = [str(a) for a in s.legal_actions()]
    assert "cloister" in legal
    assert not any(a.startswith("field:") for a in legal)
    play(s, "none")
    assert s.is_over
    fields = [e for e in ev(s, kind="field") if e.points > 0]
    assert sorted((e.player, e.points) for e in fields) == [(0, 3), (1, 3)]
    assert s.scores.tolist() == [3, 3]
    assert sorted(s.winners()) == [0, 1]
