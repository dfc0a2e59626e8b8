#!/usr/bin/env bash
# Web client CI: unit tests (TypeScript engine vs the Python parity fixture, agent index,
# record, hints), the static build, and the end-to-end matches (1280x720 and 390x844) in
# headless Chromium checked by `python -m lost_cities.replay`. Writes only git-ignored paths
# (node_modules/, dist/, test-results/): a run leaves `git status` as it found it.
# Needs node >= 20 and the lost_cities package installed (pip install -e .).
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
node e2e/play.mjs --chromium "$CHROMIUM"
