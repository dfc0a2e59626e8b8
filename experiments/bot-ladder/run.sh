#!/usr/bin/env bash
# The bot ladder: duplicate match3 tournaments on the first 10,000 deals of bank v1.
# Each line writes results/<a>__<b>.json and prints a one-line summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
DEALS=${DEALS:-10000}
for pair in heuristic_expert:heuristic_cautious heuristic_expert:heuristic_balanced \
            heuristic_cautious:discard_only heuristic_balanced:discard_only discard_only:random \
            heuristic_expert:staller heuristic_balanced:heuristic_cautious; do
  a=${pair%%:*}; b=${pair##*:}
  python -m lost_cities.tournament a="$a" b="$b" env=match3 deals="$DEALS" progress=false \
    out="experiments/bot-ladder/results/${a}__${b}.json"
done
# The same ladder against one common reference: every bot against the expert.
for a in random discard_only heuristic_cautious heuristic_balanced; do
  python -m lost_cities.tournament a="$a" b=heuristic_expert env=match3 deals="$DEALS" progress=false \
    out="experiments/bot-ladder/results/${a}__heuristic_expert.json"
done
