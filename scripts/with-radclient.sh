#!/usr/bin/env bash
# Runs a command with Debian's RADIUS client tools (freeradius-utils: radclient, radtest).
#
#   bash scripts/with-radclient.sh <command...>
#
# Exports TESSERA_TEST_RADCLIENT=/usr/bin/radclient for the command and propagates its exit code.
# There is no server to start: the tests start Tessera's own RADIUS server on a free port on
# 127.0.0.1 and send it real requests with radclient. When the tools cannot be installed the
# command still runs, without the variable (the RADIUS peer tests then say they are skipped),
# except under CI=true, where that is a failure.
set -euo pipefail

readonly RADCLIENT=/usr/bin/radclient

say() { printf '[with-radclient] %s\n' "$*" >&2; }

if [[ $# -eq 0 ]]; then
  say 'usage: bash scripts/with-radclient.sh <command...>'
  exit 2
fi

is_ci() { [[ ${CI:-} == true || ${CI:-} == 1 ]]; }

AVAILABLE=1
unavailable() {
  if is_ci; then
    say "ERROR: radclient is not available ($1); CI=true, so this is a failure."
    exit 1
  fi
  say "RADIUS peer tests are SKIPPED: $1."
  AVAILABLE=0
}

install_radclient() {
  if [[ $(id -u) -ne 0 ]]; then
    unavailable "$RADCLIENT is missing and this is not root, so apt-get cannot install it (apt-get install freeradius-utils)"
    return
  fi
  if ! command -v apt-get >/dev/null; then
    unavailable "$RADCLIENT is missing and there is no apt-get"
    return
  fi
  say 'installing freeradius-utils with apt-get (once per machine)...'
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/tessera-radclient-apt.XXXXXX")
  # Only the client tools: the freeradius server package is not installed and nothing is started.
  if ! apt-get -o DPkg::Lock::Timeout=600 update >"$log" 2>&1 ||
    ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends freeradius-utils >>"$log" 2>&1; then
    tail -n 5 "$log" >&2 || true
    rm -f "$log"
    unavailable 'apt-get could not install the freeradius-utils package (see the lines above)'
    return
  fi
  rm -f "$log"
}

[[ -x $RADCLIENT ]] || install_radclient
if [[ $AVAILABLE -eq 1 && ! -x $RADCLIENT ]]; then
  unavailable "the freeradius-utils package is installed but $RADCLIENT is missing"
fi
if [[ $AVAILABLE -eq 1 ]]; then
  export TESSERA_TEST_RADCLIENT=$RADCLIENT
  say "using $RADCLIENT ($(dpkg-query -W -f='freeradius-utils ${Version}' freeradius-utils 2>/dev/null || echo 'version unknown'))"
fi

# The command runs in the background so that a signal to this script reaches it at once; fd 3
# hands it the real standard input (a background job would otherwise read /dev/null).
CHILD=''
# shellcheck disable=SC2317 # invoked by the traps
stop_child() {
  if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
}
trap 'stop_child; exit 130' INT
trap 'stop_child; exit 143' TERM
trap 'stop_child; exit 129' HUP
exec 3<&0
"$@" <&3 3<&- &
CHILD=$!
set +e
wait "$CHILD"
status=$?
set -e
exit "$status"
