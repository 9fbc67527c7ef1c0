#!/usr/bin/env bash
# Runs a command with a throw-away rsyslog (Debian's rsyslogd) receiving syslog on 127.0.0.1.
#
#   bash scripts/with-rsyslog.sh <command...>
#
# rsyslog listens on a free UDP port and a free TCP port (octet-counted frames, RFC 6587) and
# writes every message it receives, as received (RFC 5424), one per line, to a file. Exports for
# the command:
#   TESSERA_TEST_RSYSLOG_UDP   127.0.0.1:PORT
#   TESSERA_TEST_RSYSLOG_TCP   127.0.0.1:PORT
#   TESSERA_TEST_RSYSLOG_TLS   127.0.0.1:PORT (TLS with the gtls driver, package rsyslog-gnutls;
#                              unset when that driver cannot be installed)
#   TESSERA_TEST_RSYSLOG_CA    the PEM file of the CA that signed the TLS listener's certificate
#   TESSERA_TEST_RSYSLOG_FILE  the file of received messages
#   TESSERA_TEST_RSYSLOG_CTL   a script taking `stop` or `start` (tests stop rsyslog for a while)
# propagates the command's exit code, and always stops rsyslog and removes its temp dir
# afterwards. When rsyslog cannot be installed the command still runs, without these variables
# (the tests that need rsyslog say so and skip), or this fails under CI=true.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-rsyslog "rsyslog" "rsyslog tests" "$@"

readonly PREFIX=tessera-rsyslog
readonly TMP_ROOT=${TMPDIR:-/tmp}

RSYSLOGD=$(command -v rsyslogd || true)
[[ -z $RSYSLOGD && -x /usr/sbin/rsyslogd ]] && RSYSLOGD=/usr/sbin/rsyslogd
if [[ -z $RSYSLOGD ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    say 'installing rsyslog with apt-get (once per machine)...'
    log=$(mktemp "$TMP_ROOT/$PREFIX-apt.XXXXXX")
    # Keep the package's own service down: only the servers of this script run.
    policy=/usr/sbin/policy-rc.d added_policy=0
    if [[ ! -e $policy ]]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy"
      chmod 755 "$policy"
      added_policy=1
    fi
    if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y rsyslog >"$log" 2>&1; then
      apt-get -o DPkg::Lock::Timeout=600 update >>"$log" 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y rsyslog >>"$log" 2>&1 || true
    fi
    [[ $added_policy -eq 1 ]] && rm -f "$policy"
    tail -n 3 "$log" >&2 || true
    rm -f "$log"
    RSYSLOGD=$(command -v rsyslogd || true)
    [[ -z $RSYSLOGD && -x /usr/sbin/rsyslogd ]] && RSYSLOGD=/usr/sbin/rsyslogd
  fi
  [[ -n $RSYSLOGD ]] || run_without 'rsyslogd is not installed and cannot be installed here (apt-get install rsyslog, as root)' "$@"
fi

# TLS needs the gtls network stream driver (Debian package rsyslog-gnutls) and openssl for the
# throw-away certificates; without them the TLS listener is left out (and its test says so).
GTLS=$(find /usr/lib -name lmnsd_gtls.so -path '*rsyslog*' 2>/dev/null | head -n 1 || true)
if [[ -z $GTLS && $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  say 'installing rsyslog-gnutls with apt-get (once per machine)...'
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y rsyslog-gnutls >/dev/null 2>&1 ||
    { apt-get -o DPkg::Lock::Timeout=600 update >/dev/null 2>&1 || true
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y rsyslog-gnutls >/dev/null 2>&1 || true; }
  GTLS=$(find /usr/lib -name lmnsd_gtls.so -path '*rsyslog*' 2>/dev/null | head -n 1 || true)
fi
WITH_TLS=0
if [[ -n $GTLS ]] && command -v openssl >/dev/null; then
  WITH_TLS=1
elif is_ci; then
  say 'ERROR: the rsyslog TLS driver (rsyslog-gnutls) or openssl is not available; CI=true, so this is a failure.'
  exit 1
else
  say 'rsyslog over TLS is SKIPPED: rsyslog-gnutls or openssl is not available.'
fi

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();});'
}

# Servers of runs that were killed (SIGKILL skips the EXIT trap): stop them and remove their dirs.
for dir in "$TMP_ROOT/$PREFIX".*; do
  [[ -d $dir && -f $dir/owner.pid ]] || continue
  owner=$(cat "$dir/owner.pid" 2>/dev/null || true)
  if [[ -n $owner ]] && kill -0 "$owner" 2>/dev/null; then continue; fi
  [[ -f $dir/rsyslogd.pid ]] && kill "$(cat "$dir/rsyslogd.pid")" 2>/dev/null || true
  rm -rf "$dir"
done

WORK=$(mktemp -d "$TMP_ROOT/$PREFIX.XXXXXX")
echo $$ >"$WORK/owner.pid"
UDP_PORT=$(free_port)
TCP_PORT=$(free_port)
TLS_PORT=$(free_port)
mkdir -p "$WORK/spool"

TLS_CONF=''
if [[ $WITH_TLS -eq 1 ]]; then
  # A CA of the run and a certificate for 127.0.0.1 and localhost signed by it.
  (
    cd "$WORK"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj '/CN=Tessera test syslog CA' \
      -keyout ca.key -out ca.pem >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj '/CN=localhost' -keyout server.key -out server.csr >/dev/null 2>&1
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >san.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
      -extfile san.ext -out server.pem >/dev/null 2>&1
  )
  TLS_CONF="input(type=\"imtcp\" address=\"127.0.0.1\" port=\"$TLS_PORT\" streamDriver.name=\"gtls\" streamDriver.mode=\"1\" streamDriver.authMode=\"anon\")"
fi

cat >"$WORK/rsyslog.conf" <<EOF
global(workDirectory="$WORK/spool" maxMessageSize="64k"
  defaultNetstreamDriverCAFile="$WORK/ca.pem"
  defaultNetstreamDriverCertFile="$WORK/server.pem"
  defaultNetstreamDriverKeyFile="$WORK/server.key")
module(load="imudp")
module(load="imtcp")
input(type="imudp" address="127.0.0.1" port="$UDP_PORT")
input(type="imtcp" address="127.0.0.1" port="$TCP_PORT")
$TLS_CONF
template(name="raw" type="string" string="%rawmsg%\n")
action(type="omfile" file="$WORK/messages.log" template="raw" flushOnTXEnd="on" asyncWriting="off")
EOF

cat >"$WORK/ctl.sh" <<EOF
#!/usr/bin/env bash
# stop: ends rsyslogd and waits until it is gone; start: starts it and waits for both ports.
set -euo pipefail
case "\${1:-}" in
  stop)
    if [[ -f "$WORK/rsyslogd.pid" ]]; then
      pid=\$(cat "$WORK/rsyslogd.pid")
      kill "\$pid" 2>/dev/null || true
      for _ in \$(seq 1 100); do kill -0 "\$pid" 2>/dev/null || break; sleep 0.05; done
      rm -f "$WORK/rsyslogd.pid"
    fi ;;
  start)
    if [[ -f "$WORK/rsyslogd.pid" ]] && kill -0 "\$(cat "$WORK/rsyslogd.pid")" 2>/dev/null; then exit 0; fi
    "$RSYSLOGD" -f "$WORK/rsyslog.conf" -i "$WORK/rsyslogd.pid" >>"$WORK/rsyslogd.out" 2>&1
    for _ in \$(seq 1 100); do
      if (exec 3<>/dev/tcp/127.0.0.1/$TCP_PORT) 2>/dev/null; then exit 0; fi
      sleep 0.05
    done
    echo "rsyslogd did not start listening" >&2; exit 1 ;;
  *) echo "usage: \$0 stop|start" >&2; exit 2 ;;
esac
EOF
chmod +x "$WORK/ctl.sh"

CHILD=''
# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  "$WORK/ctl.sh" stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

if ! "$RSYSLOGD" -N1 -f "$WORK/rsyslog.conf" >"$WORK/check.log" 2>&1; then
  cat "$WORK/check.log" >&2 || true
  say 'ERROR: the rsyslog configuration was refused (output above).'
  exit 1
fi
if ! "$WORK/ctl.sh" start; then
  cat "$WORK/rsyslogd.out" >&2 || true
  say 'ERROR: rsyslogd did not start (output above).'
  exit 1
fi

export TESSERA_TEST_RSYSLOG_UDP="127.0.0.1:$UDP_PORT"
export TESSERA_TEST_RSYSLOG_TCP="127.0.0.1:$TCP_PORT"
if [[ $WITH_TLS -eq 1 ]]; then
  export TESSERA_TEST_RSYSLOG_TLS="127.0.0.1:$TLS_PORT"
  export TESSERA_TEST_RSYSLOG_CA="$WORK/ca.pem"
fi
export TESSERA_TEST_RSYSLOG_FILE="$WORK/messages.log"
export TESSERA_TEST_RSYSLOG_CTL="$WORK/ctl.sh"
ports="udp/tcp 127.0.0.1:$UDP_PORT/$TCP_PORT"
[[ $WITH_TLS -eq 1 ]] && ports="udp/tcp/tls 127.0.0.1:$UDP_PORT/$TCP_PORT/$TLS_PORT"
say "rsyslog $("$RSYSLOGD" -v | head -n 1 | awk '{print $2}') receiving on $ports (stopped when the command ends)"

exec 3<&0
"$@" <&3 3<&- &
CHILD=$!
set +e
wait "$CHILD"
status=$?
set -e
CHILD=''
exit "$status"
