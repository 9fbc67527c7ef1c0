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

NGINX=$(command -v nginx || true)
[[ -z $NGINX && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
if [[ -z $NGINX ]]; then
  apt_install nginx-light || apt_install nginx || true
  NGINX=$(command -v nginx || true)
  [[ -z $NGINX && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
  [[ -n $NGINX ]] || run_without 'nginx is not installed and cannot be installed here (apt-get install nginx, as root)' "$@"
fi

reap_stale nginx.pid

WORK=$(mktemp -d "$TMP_ROOT/$PREFIX.XXXXXX")
chmod 755 "$WORK"
echo $$ >"$WORK/owner.pid"

CHILD=''
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  if [[ -f $WORK/nginx.pid ]]; then kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true; fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

export TESSERA_TEST_NGINX="$NGINX"
export TESSERA_TEST_NGINX_DIR="$WORK"
say "$("$NGINX" -v 2>&1 | head -n 1) at hand in $WORK (stopped when the command ends)"

exec 3<&0
"$@" <&3 3<&- &
CHILD=$!
set +e
wait "$CHILD"
status=$?
set -e
CHILD=''
exit "$status"
