#!/usr/bin/env bash
# Runs every benchmark on PGlite, then on a throw-away PostgreSQL; logs go to bench/results/.
#   bash bench/run-all.sh            (about 15 minutes on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results
npm run build:server --silent
log="bench/results/run-all-$(date -u +%Y%m%dT%H%M%SZ).log"
{
  for bench in signin grants app-grants memory cold-start; do
    echo "=== $bench on PGlite"
    node --conditions=source --import tsx "bench/$bench.ts"
  done
  # shellcheck disable=SC2016 # expanded by the inner shell
  bash scripts/with-postgres.sh bash -c '
    set -e
    for bench in signin grants app-grants memory cold-start; do
      echo "=== $bench on PostgreSQL"
      BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx "bench/$bench.ts"
    done'
} 2>&1 | tee "$log"
echo "log: $log"
