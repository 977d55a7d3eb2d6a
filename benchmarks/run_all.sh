#!/usr/bin/env bash
# Every speed benchmark of the project, one JSON line per result.
# Usage: bash benchmarks/run_all.sh [SECONDS]   (default 10 s per measurement)
set -euo pipefail
S="${1:-10}"
for exp in "" messages labyrinth messages,labyrinth; do
  carcassonne-rl bench engine --game carcassonne --seconds "$S" --expansions "$exp"
done
for players in 3 4 5; do
  carcassonne-rl bench engine --game carcassonne --players "$players" --seconds "$S"
done
for players in 2 3 4 5; do
  carcassonne-rl bench engine --game cardcassonne --players "$players" --seconds "$S"
done
carcassonne-rl bench env --env carcassonne_v0 --seconds "$S"
carcassonne-rl bench env --env carcassonne_v0 --seconds "$S" --expansions messages,labyrinth
carcassonne-rl bench env --env cardcassonne_v0 --seconds "$S"
# carcassonne_v1 (compact observation), timed against carcassonne_v0 in the same run
carcassonne-rl bench env --env carcassonne_v1 --seconds "$S"
carcassonne-rl bench env --env carcassonne_v1 --seconds "$S" --expansions messages,labyrinth
