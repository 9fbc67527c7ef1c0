#!/usr/bin/env bash
# Runs a command with Debian's Chromium available.
#
#   bash scripts/with-chromium.sh <command...>
#
# Exports CHROMIUM_PATH=/usr/bin/chromium (and PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1: browsers are
# never downloaded by npm or Playwright) and propagates the command's exit code. When Chromium
# cannot be installed the command is skipped (exit 0), or fails under CI=true.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-chromium "Chromium" "Browser tests" "$@"

readonly CHROMIUM=/usr/bin/chromium

install_chromium() {
  [[ $(id -u) -eq 0 ]] || skip_all "$CHROMIUM is missing and this is not root, so apt-get cannot install it (apt-get install chromium)"
  command -v apt-get >/dev/null || skip_all "$CHROMIUM is missing and there is no apt-get"
  say 'installing Chromium with apt-get (once per machine)...'
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/tessera-chromium-apt.XXXXXX")
  if ! apt-get -o DPkg::Lock::Timeout=600 update >"$log" 2>&1 ||
    ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y chromium fonts-wqy-microhei >>"$log" 2>&1; then
    tail -n 5 "$log" >&2 || true
    rm -f "$log"
    skip_all 'apt-get could not install the chromium package (see the lines above)'
  fi
  rm -f "$log"
}

[[ -x $CHROMIUM ]] || install_chromium
# The console and sign-in pages are also tested in Chinese: without a CJK font the screenshots show boxes.
if [[ $(id -u) -eq 0 ]] && command -v fc-list >/dev/null && ! fc-list :lang=zh | grep -q .; then
  say 'installing a Chinese font (fonts-wqy-microhei)...'
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y fonts-wqy-microhei >/dev/null 2>&1 ||
    say 'could not install fonts-wqy-microhei: Chinese screenshots will show boxes'
fi
[[ -x $CHROMIUM ]] || skip_all "the chromium package is installed but $CHROMIUM is missing"

if ! VERSION=$("$CHROMIUM" --headless --no-sandbox --version 2>/dev/null); then
  skip_all "$CHROMIUM is installed but does not run ($CHROMIUM --version failed)"
fi
say "using $VERSION ($CHROMIUM)"

export CHROMIUM_PATH=$CHROMIUM
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

# As in with-postgres.sh: background + wait, so that a signal to this script ends the command too.
CHILD=''
# shellcheck disable=SC2317 # invoked by the traps
on_signal() {
  trap - INT TERM HUP
  if [[ -n $CHILD ]]; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

exec 3<&0
"$@" <&3 3<&- &
CHILD=$!
set +e
wait "$CHILD"
status=$?
set -e
exit "$status"
