#!/usr/bin/env bash
# Runs a command with Debian's nginx at hand, for benchmarks that put a round-robin proxy in front
# of several servers (bench/storm.bench.ts).
#
#   bash scripts/with-nginx.sh <command...>
#
# Installs nginx with apt-get when it is missing (as root; its own service stays down), and
# exports for the command:
#   TESSERA_TEST_NGINX      the nginx binary
#   TESSERA_TEST_NGINX_DIR  a temp dir for the configuration, logs and temp files of the command's
#                           nginx (the command writes its configuration and starts nginx itself,
#                           since only it knows the ports of the servers behind the proxy)
# propagates the command's exit code, and always stops an nginx left running from that dir
# (its pid file) and removes the dir afterwards. When nginx cannot be installed the command still
# runs, without these variables (bench/storm.bench.ts then says so and stops), or this fails
# under CI=true.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-nginx "nginx" "the proxied benchmarks" "$@"

readonly PREFIX=tessera-nginx
readonly TMP_ROOT=${TMPDIR:-/tmp}

NGINX=$(find_program nginx)
if [[ -z $NGINX ]]; then
  apt_install nginx-light || apt_install nginx || true
  NGINX=$(find_program nginx)
  [[ -n $NGINX ]] || run_without 'nginx is not installed and cannot be installed here (apt-get install nginx, as root)' "$@"
fi

service_workdir nginx.pid
chmod 755 "$WORK"

export TESSERA_TEST_NGINX="$NGINX"
export TESSERA_TEST_NGINX_DIR="$WORK"
say "$("$NGINX" -v 2>&1 | head -n 1) at hand in $WORK (stopped when the command ends)"

service_run "$@"
