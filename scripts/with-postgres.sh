#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL server on 127.0.0.1.
#
#   bash scripts/with-postgres.sh <command...>
#
# Exports TESSERA_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:PORT/postgres for the command,
# propagates its exit code, and always stops the server and removes its temp dir afterwards.
# When PostgreSQL cannot be installed the command is skipped (exit 0), or fails under CI=true.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-postgres "PostgreSQL" "PostgreSQL tests" "$@"

readonly PREFIX=tessera-pg
readonly TMP_ROOT=${TMPDIR:-/tmp}

find_bin() {
  # The highest major version that has a complete server.
  local dir
  for dir in /usr/lib/postgresql/*/bin; do
    if [[ -x $dir/initdb && -x $dir/pg_ctl && -x $dir/postgres ]]; then echo "$dir"; fi
  done | sort -V | tail -n 1
}

install_postgres() {
  [[ $(id -u) -eq 0 ]] || skip_all 'the PostgreSQL server is not installed and this is not root, so apt-get cannot install it (apt-get install postgresql)'
  command -v apt-get >/dev/null || skip_all 'the PostgreSQL server is not installed and there is no apt-get'
  say 'installing PostgreSQL with apt-get (once per machine)...'
  # Debian's postinst creates a "main" cluster and may try to start it: a policy-rc.d that
  # forbids service starts keeps it down (nothing here relies on systemd or init scripts).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    added_policy=1
  fi
  local ok=1 log
  log=$(mktemp "$TMP_ROOT/$PREFIX-apt.XXXXXX")
  if ! apt-get -o DPkg::Lock::Timeout=600 update >"$log" 2>&1 ||
    ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y postgresql >>"$log" 2>&1; then
    ok=0
  fi
  [[ $added_policy -eq 1 ]] && rm -f "$policy"
  # Should a cluster have been started anyway, stop it: only our own servers run.
  if command -v pg_lsclusters >/dev/null; then
    local version name status
    while read -r version name _ status _; do
      if [[ $status == online* ]]; then
        say "stopping the cluster $version/$name that the package installation started"
        pg_ctlcluster "$version" "$name" stop || true
      fi
    done < <(pg_lsclusters --no-header 2>/dev/null || true)
  fi
  if [[ $ok -eq 0 ]]; then
    tail -n 5 "$log" >&2 || true
    rm -f "$log"
    skip_all 'apt-get could not install the postgresql package (see the lines above)'
  fi
  rm -f "$log"
}

# Runs a shell command line as the database's owner (postgres refuses to run as root).
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then
    su postgres -s /bin/sh -c "$1"
  else
    sh -c "$1"
  fi
}

free_port() {
  if command -v node >/dev/null; then
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
  elif command -v python3 >/dev/null; then
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()'
  else
    echo $((20000 + RANDOM % 20000))
  fi
}

# Servers of runs that were killed (SIGKILL skips the EXIT trap): stop them and remove their dirs.
reap_stale() {
  local dir owner
  for dir in "$TMP_ROOT/$PREFIX".*; do
    [[ -d $dir && -f $dir/owner.pid ]] || continue
    owner=$(cat "$dir/owner.pid" 2>/dev/null || true)
    if [[ -n $owner ]] && kill -0 "$owner" 2>/dev/null; then continue; fi
    if [[ -f $dir/data/postmaster.pid ]]; then
      as_owner "'$BIN/pg_ctl' -D '$dir/data' -m immediate -t 20 stop" >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
  done
}

BIN=$(find_bin)
if [[ -z $BIN ]]; then
  install_postgres
  BIN=$(find_bin)
  [[ -n $BIN ]] || skip_all 'the postgresql package is installed but no initdb was found under /usr/lib/postgresql/*/bin'
fi
if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
  skip_all 'running as root but there is no "postgres" user to run the server as'
fi

reap_stale

WORK=$(mktemp -d "$TMP_ROOT/$PREFIX.XXXXXX")
echo $$ >"$WORK/owner.pid"
CHILD=''
STARTED=0

# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  if [[ $STARTED -eq 1 || -f $WORK/data/postmaster.pid ]]; then
    as_owner "'$BIN/pg_ctl' -D '$WORK/data' -m fast -t 30 stop" >/dev/null 2>&1 ||
      as_owner "'$BIN/pg_ctl' -D '$WORK/data' -m immediate -t 30 stop" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mkdir -p "$WORK/data" "$WORK/sock"
[[ $(id -u) -eq 0 ]] && chown -R postgres:postgres "$WORK"
chmod 700 "$WORK/data"

if ! as_owner "'$BIN/initdb' -D '$WORK/data' -U postgres --auth=trust -E UTF8 --locale=C.UTF-8" \
  >"$WORK/initdb.log" 2>&1; then
  tail -n 20 "$WORK/initdb.log" >&2 || true
  say 'ERROR: initdb failed (output above).'
  exit 1
fi

# A port picked as free can be taken before the server binds it: try a few.
PORT=''
for _ in 1 2 3 4 5; do
  candidate=$(free_port)
  if as_owner "'$BIN/pg_ctl' -D '$WORK/data' -l '$WORK/server.log' -w -t 60 start -o \"-c listen_addresses=127.0.0.1 -p $candidate -k $WORK/sock -c fsync=off -c full_page_writes=off -c max_connections=200\"" \
    >"$WORK/pg_ctl.log" 2>&1; then
    PORT=$candidate
    STARTED=1
    break
  fi
  as_owner "'$BIN/pg_ctl' -D '$WORK/data' -m immediate stop" >/dev/null 2>&1 || true
done
if [[ -z $PORT ]]; then
  tail -n 20 "$WORK/server.log" >&2 2>/dev/null || true
  say 'ERROR: the PostgreSQL server did not start (server log above).'
  exit 1
fi

VERSION=$("$BIN/postgres" --version | sed 's/^postgres (PostgreSQL) //')
export TESSERA_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PORT/postgres"
say "PostgreSQL $VERSION started on 127.0.0.1:$PORT (data in $WORK/data, stopped when the command ends)"

# The command runs in the background so that a signal to this script reaches the trap at once;
# fd 3 hands it the real standard input (a background job would otherwise read /dev/null).
exec 3<&0
"$@" <&3 3<&- &
CHILD=$!
set +e
wait "$CHILD"
status=$?
set -e
CHILD=''
exit "$status"
