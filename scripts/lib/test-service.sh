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

# A program on the PATH, or in /usr/sbin (not on the PATH of every user); prints nothing when it
# is missing.
#   find_program <name>
find_program() {
  command -v "$1" || { [[ -x /usr/sbin/$1 ]] && echo "/usr/sbin/$1"; } || true
}

# Stops the server whose pid is in <pid file> (TERM, then KILL after 5 s) and removes the file.
#   stop_pid_file <pid file>
stop_pid_file() {
  local pid
  pid=$(cat "$1" 2>/dev/null || true)
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$1"
}

# Makes the run's dir WORK (after reaping those of killed runs) and traps EXIT to stop the command,
# stop the server whose pid file is <pid file name> in WORK, and remove WORK.
#   service_workdir <pid file name inside the run's dir>
service_workdir() {
  SERVICE_PID_FILE=$1
  reap_stale "$SERVICE_PID_FILE"
  WORK=$(mktemp -d "$TMP_ROOT/$PREFIX.XXXXXX")
  echo $$ >"$WORK/owner.pid"
  CHILD=''
  trap service_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
}

# shellcheck disable=SC2317 # invoked by the EXIT trap
service_cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [[ -n ${CHILD:-} ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  stop_pid_file "$WORK/$SERVICE_PID_FILE"
  rm -rf "$WORK"
  exit "$status"
}

# Runs the command in the background, so that a signal to the script reaches its trap at once;
# fd 3 hands it the real standard input (a background job would otherwise read /dev/null). Exits
# with the command's status.
#   service_run <command...>
service_run() {
  exec 3<&0
  "$@" <&3 3<&- &
  CHILD=$!
  set +e
  wait "$CHILD"
  local status=$?
  set -e
  CHILD=''
  exit "$status"
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

# ---- Apache httpd test instances (with-apache-*.sh) ----
# A test Apache is prepared by the script (a temp dir, a free port, a page) and started by the
# tests through an exported command, once they know what to point it at (a CAS server, an LDAP
# server). The script writes $WORK/site.sh, which takes the tests' arguments and prints its part
# of httpd.conf; apache_write_start makes $WORK/start.sh around it.

APACHE_MODULES=/usr/lib/apache2/modules
APACHE_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/test-service.sh

# Stops the Apache whose pid file is in <dir> (TERM, then KILL after 5 s).
#   apache_stop <dir>
apache_stop() {
  stop_pid_file "$1/httpd.pid"
}

# Makes the run's dir WORK (with htdocs/protected, readable by Apache's unprivileged children when
# run as root) and a free PORT, and traps EXIT to stop the command, Apache, and remove WORK.
#   apache_prepare   (needs PREFIX and TMP_ROOT)
apache_prepare() {
  service_workdir httpd.pid
  PORT=$(free_port)
  chmod 755 "$WORK"
  mkdir -p "$WORK/htdocs/protected"
}

# The part of httpd.conf every test Apache shares: its own pid file, log and mutex in <dir>,
# 127.0.0.1:<port>, the core modules and <modules...> (mod_<name>.so), the document root with
# server-side includes (.shtml).
#   apache_conf_common <dir> <port> <LogLevel> <module...>
apache_conf_common() {
  local dir=$1 port=$2 level=$3 module
  shift 3
  cat <<CONF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile $dir/httpd.pid
ErrorLog $dir/error.log
LogLevel $level
Mutex file:$dir
DefaultRuntimeDir $dir
CONF
  for module in mpm_event authn_core authz_core authz_user mime include "$@"; do
    echo "LoadModule ${module}_module $APACHE_MODULES/mod_$module.so"
  done
  cat <<CONF
DocumentRoot $dir/htdocs
TypesConfig /dev/null
AddType text/html .shtml
AddOutputFilter INCLUDES .shtml
<Directory $dir/htdocs>
  Options +Includes
  Require all granted
</Directory>
CONF
}

# (Re)starts the Apache of <dir> with <dir>/httpd.conf and waits until it listens on <port>.
#   apache_restart <dir> <port>
apache_restart() {
  local dir=$1 port=$2
  apache_stop "$dir"
  /usr/sbin/apache2 -f "$dir/httpd.conf" -k start
  for _ in $(seq 100); do
    [[ -s $dir/httpd.pid ]] && (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null && return 0
    sleep 0.1
  done
  cat "$dir/error.log" >&2 || true
  echo 'Apache did not start (log above)' >&2
  return 1
}

# Writes $WORK/start.sh: it writes httpd.conf (mode 600: it may hold a password) from the common
# part and what $WORK/site.sh prints for the start command's arguments, then (re)starts Apache.
#   apache_write_start <LogLevel> <module...>
apache_write_start() {
  local level=$1
  shift
  {
    echo '#!/usr/bin/env bash'
    echo 'set -euo pipefail'
    printf 'source %q\n' "$APACHE_LIB"
    echo 'umask 077'
    printf 'site=$(bash %q "$@")\n' "$WORK/site.sh"
    printf '{ apache_conf_common %q %q %q' "$WORK" "$PORT" "$level"
    printf ' %q' "$@"
    printf '; printf "%%s\\n" "$site"; } >%q\n' "$WORK/httpd.conf"
    printf 'apache_restart %q %q\n' "$WORK" "$PORT"
  } >"$WORK/start.sh"
  chmod 755 "$WORK/start.sh"
}
