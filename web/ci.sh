#!/usr/bin/env bash
# Web client CI: unit tests (the generated Python contract, the TypeScript engine, af1 action
# features, the scripted bots, the search's belief, the search's decisions and the match review vs
# the Python parity fixtures, agent index, ladder and ratings, record), the static build, and the
# end-to-end matches (the first screen at 1280x720 and 390x844; the ladder's lowest level, the
# club-level bot on a phone, a test-only af1 model, the highest level, the search, and its match's
# review in the Web Worker; the highest level's match runs beside the others, in a browser context
# of its own) in headless Chromium checked by `python -m lost_cities.replay`. Writes only git-ignored paths
# (node_modules/, dist/, test-results/): a run leaves `git status` as it found it.
# Needs node >= 20 and the lost_cities package installed (pip install -e .); tools/ writes the fixtures.
set -euo pipefail
cd "$(dirname "$0")"
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "installing Debian's chromium for the end-to-end test"
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
fi
npm ci --no-audit --no-fund
npx vitest run
npm run build
# A test-only af1 model (zero weights but the expert-total draw weight: it plays heuristic_expert's
# moves through the page's af1 rows) for the third e2e match; written to git-ignored test-results/.
mkdir -p test-results
(cd .. && python tools/action_fixture.py --expert-model web/test-results/af1-expert.onnx)
node e2e/play.mjs --chromium "$CHROMIUM" --af1-model test-results/af1-expert.onnx
