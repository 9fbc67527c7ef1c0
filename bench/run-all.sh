#!/usr/bin/env bash
# Runs every benchmark on PGlite, then on a throw-away PostgreSQL; logs go to bench/results/.
#   bash bench/run-all.sh            (about 25 minutes on 2 cores)
# radius.bench.ts also signs in once with Debian's radclient, which scripts/with-radclient.sh
# provides when it can (the benchmarks run without it otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results
npm run build:server --silent
log="bench/results/run-all-$(date -u +%Y%m%dT%H%M%SZ).log"
{
  # shellcheck disable=SC2016 # expanded by the inner shell
  bash scripts/with-radclient.sh bash -c '
    set -e
    for bench in signin grants app-grants memory cold-start radius.bench; do
      echo "=== $bench on PGlite"
      node --conditions=source --import tsx "bench/$bench.ts"
    done'
  # shellcheck disable=SC2016 # expanded by the inner shell
  bash scripts/with-postgres.sh bash scripts/with-radclient.sh bash -c '
    set -e
    for bench in signin grants app-grants memory cold-start radius.bench; do
      echo "=== $bench on PostgreSQL"
      BENCH_DATABASE_URL=$TESSERA_TEST_DATABASE_URL node --conditions=source --import tsx "bench/$bench.ts"
    done'
} 2>&1 | tee "$log"
echo "log: $log"
