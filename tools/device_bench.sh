#!/usr/bin/env bash
# The benchmarks on a GPU machine, at batch sizes that fill a card (docs/performance.md):
#
#   bash tools/device_bench.sh [WHEELS_DIR]
#
# Installs the package with its CUDA extra (from PyPI, or offline from WHEELS_DIR, a folder of
# wheels for that machine's Python), refuses to go on unless JAX sees a GPU, then runs
# `python -m lost_cities.bench` twice: at the CPU defaults (the same figures as this machine's
# docs) and at GPU sizes. Writes device-bench-<UTC date>.txt (the commands, the commit, the
# date, nvidia-smi's card and every key=value line) into $OUT if set, else the current folder.
# Nothing in the package needs a GPU; this script is the only place that asks for one.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $# -ge 1 ]]; then
  python -m pip install -q --no-index --find-links "$1" -e '.[cuda]'
else
  python -m pip install -q -e '.[cuda]'
fi
backend=$(python -c 'import jax; print(jax.default_backend())')
if [[ "$backend" != gpu ]]; then
  echo "JAX's backend is $backend, not gpu: is the CUDA extra installed and a card visible?" >&2
  exit 1
fi
out="${OUT:-.}/device-bench-$(date -u +%Y-%m-%dT%H-%M-%S).txt"
# GPU sizes: 2^18 games for the engine, 8192 PPO envs (32x the CPU default), 2048 positions
# searched at once (x 128 rollouts each: 262,144 lanes).
commands=(
  "python -m lost_cities.bench --runs 5"
  "python -m lost_cities.bench --runs 5 --batch 262144 --train-envs 8192 --search-games 2048"
)
{
  echo "# tools/device_bench.sh, commit $(git rev-parse HEAD 2>/dev/null || echo unknown), $(date -u -Is)"
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | sed 's/^/# card: /'
  for command in "${commands[@]}"; do
    echo "# $command"
    PYTHONUNBUFFERED=1 $command 2>&1 | grep -E '^[a-z_0-9]+=' || { echo "# failed: $command"; exit 1; }
  done
} | tee "$out"
echo "wrote $out" >&2
