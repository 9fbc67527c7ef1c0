# Shared by scripts/with-*.sh: each runs a command with a throw-away test service.
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
#   service_init <script name> <service name> <what its tests are> "$@"
#
# Defines `say`, `is_ci`, and two ways to go on when the service cannot be had:
#   skip_all <reason>              the command is not run at all (exit 0), or fails under CI=true;
#   run_without <reason> <cmd...>  the command runs without the service (its tests skip), or this
#                                  fails under CI=true.

service_init() {
  SERVICE_SCRIPT=$1
  SERVICE_NAME=$2
  SERVICE_TESTS=$3
  shift 3
  if [[ $# -eq 0 ]]; then
    say "usage: bash scripts/$SERVICE_SCRIPT.sh <command...>"
    exit 2
  fi
}

say() { printf '[%s] %s\n' "$SERVICE_SCRIPT" "$*" >&2; }

is_ci() { [[ ${CI:-} == true || ${CI:-} == 1 ]]; }

fail_under_ci() {
  if is_ci; then
    say "ERROR: $SERVICE_NAME is not available ($1); CI=true, so this is a failure."
    exit 1
  fi
}

skip_all() {
  fail_under_ci "$1"
  say "$SERVICE_TESTS are SKIPPED: $1."
  exit 0
}

run_without() {
  local reason=$1
  shift
  fail_under_ci "$reason"
  say "$SERVICE_TESTS are SKIPPED: $reason."
  exec "$@"
}

# The helpers below need PREFIX (the name of the script's temp dirs) and TMP_ROOT.

# A free TCP port of 127.0.0.1 (free when asked: a server should try again if it is taken).
free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
}

# Servers of runs that were killed (SIGKILL skips the EXIT trap): stop them and remove their dirs.
#   reap_stale <pid file name inside the run's dir>
reap_stale() {
  local pid_file=$1 dir owner pid
  for dir in "$TMP_ROOT/$PREFIX".*; do
    [[ -d $dir && -f $dir/owner.pid ]] || continue
    owner=$(cat "$dir/owner.pid" 2>/dev/null || true)
    if [[ -n $owner ]] && kill -0 "$owner" 2>/dev/null; then continue; fi
    pid=$(cat "$dir/$pid_file" 2>/dev/null || true)
    [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
    rm -rf "$dir"
  done
}

# Installs Debian packages as root (apt-get update only when the install fails without it). A
# package's postinst would start a server of its own: a policy-rc.d that forbids starts keeps it
# down. Fails (status 1) when not root, without apt-get, or when the install fails.
#   apt_install <package...>
apt_install() {
  [[ $(id -u) -eq 0 ]] || return 1
  command -v apt-get >/dev/null || return 1
  say "installing $* with apt-get (once per machine)..."
  local policy=/usr/sbin/policy-rc.d added_policy=0 ok=0 log
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    added_policy=1
  fi
  log=$(mktemp "$TMP_ROOT/$PREFIX-apt.XXXXXX")
  if DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "$@" >"$log" 2>&1 ||
    { apt-get -o DPkg::Lock::Timeout=600 update >>"$log" 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "$@" >>"$log" 2>&1; }; then
    ok=1
  fi
  [[ $added_policy -eq 1 ]] && rm -f "$policy"
  [[ $ok -eq 1 ]] || tail -n 5 "$log" >&2 || true
  rm -f "$log"
  [[ $ok -eq 1 ]]
}
