#!/usr/bin/env bash
# Runs a command with Debian's RADIUS client tools (freeradius-utils: radclient, radtest).
#
#   bash scripts/with-radclient.sh <command...>
#
# Exports TESSERA_TEST_RADCLIENT=/usr/bin/radclient for the command and propagates its exit code.
# There is no server to start: the tests start Tessera's own RADIUS server on a free port on
# 127.0.0.1 and send it real requests with radclient. When the tools cannot be installed the
# command still runs, without the variable (the RADIUS peer tests then say they are skipped),
# or this fails under CI=true.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-radclient "radclient" "RADIUS peer tests" "$@"

readonly RADCLIENT=/usr/bin/radclient

if [[ ! -x $RADCLIENT ]]; then
  [[ $(id -u) -eq 0 ]] ||
    run_without "$RADCLIENT is missing and this is not root, so apt-get cannot install it (apt-get install freeradius-utils)" "$@"
  command -v apt-get >/dev/null || run_without "$RADCLIENT is missing and there is no apt-get" "$@"
  say 'installing freeradius-utils with apt-get (once per machine)...'
  log=$(mktemp "${TMPDIR:-/tmp}/tessera-radclient-apt.XXXXXX")
  # Only the client tools: the freeradius server package is not installed and nothing is started.
  install() {
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends \
      freeradius-utils >>"$log" 2>&1
  }
  if ! install; then
    apt-get -o DPkg::Lock::Timeout=600 update >>"$log" 2>&1 || true
    install || true
  fi
  [[ -x $RADCLIENT ]] || tail -n 5 "$log" >&2 || true
  rm -f "$log"
  [[ -x $RADCLIENT ]] ||
    run_without 'apt-get could not install the freeradius-utils package (see the lines above)' "$@"
fi

export TESSERA_TEST_RADCLIENT=$RADCLIENT
say "using $RADCLIENT ($(dpkg-query -W -f='freeradius-utils ${Version}' freeradius-utils 2>/dev/null || echo 'version unknown'))"
exec "$@"
