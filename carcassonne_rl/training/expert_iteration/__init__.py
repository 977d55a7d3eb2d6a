"""Expert iteration: a search as the teacher of a network. Tile game: ``pretrained:search``
teaches the 2-player afterstate value network; card game (:mod:`.card_teacher`,
:mod:`.card_fit`): ``heuristic:search`` / ``pretrained:search`` teach the search-value
network. :mod:`.positions` plays the teacher against itself
and records, at every tile placement, the search's expectation of the options it searched
(resumable, one file per game); :mod:`.finetune` fine-tunes the value network toward those
expectations and reports, on held-out games, how often the network's choice matches the
search's; :mod:`.loop` repeats both, gating each fine-tuned network against its teacher's
before it teaches (``carcassonne-rl expert-loop``)."""
