#!/usr/bin/env bash
# Every speed benchmark of the project, one JSON line per result.
# Usage: bash benchmarks/run_all.sh [SECONDS]   (default 10 s per measurement)
set -euo pipefail
S="${1:-10}"
for players in 2 3 4 5; do
  carcassonne-rl bench engine --game carcassonne --players "$players" --seconds "$S"
done
for players in 2 3 4 5; do
  carcassonne-rl bench engine --game cardcassonne --players "$players" --seconds "$S"
done
