#!/usr/bin/env bash
# The ladder's all-play-all duplicate tournament (README.md): the page's five levels and the
# scripted anchors, every pair on deal bank v1 from deal 0; pairs with the search play fewer
# deals, and pairs measured before are reused from their results files. Writes results/
# (ratings.json, ratings.md, pairs/) and the page's web/public/ratings.json.
set -euo pipefail
cd "$(dirname "$0")/../.."
SEARCH=search/belief:web/public/bc-ppo-xi6-bal2700.onnx
python -m lost_cities.tournament \
  "players=[random,discard_only,heuristic_cautious,heuristic_balanced,heuristic_expert,web/public/bc-ppo-xi6-bal2700.onnx,web/public/improve-b1.onnx,web/public/improve-c4.onnx,web/public/improve-d4.onnx,$SEARCH]" \
  anchor=heuristic_expert deals=200 "slow.players=[$SEARCH]" slow.deals=30 \
  "reuse=[web/public/bc-ppo-xi6-bal2700-search.results.json,experiments/search-vs-net/results/bal2700_belief_w32_vs_bal2700_500.json,experiments/bot-ladder/results/discard_only__heuristic_expert.json,experiments/bot-ladder/results/discard_only__random.json,experiments/bot-ladder/results/heuristic_balanced__discard_only.json,experiments/bot-ladder/results/heuristic_balanced__heuristic_cautious.json,experiments/bot-ladder/results/heuristic_expert__heuristic_balanced.json,experiments/bot-ladder/results/heuristic_cautious__discard_only.json,experiments/bot-ladder/results/heuristic_expert__heuristic_cautious.json,experiments/bot-ladder/results/random__heuristic_expert.json]" \
  out_dir=experiments/player-ladder/results ratings_out=web/public/ratings.json progress=false "$@"
