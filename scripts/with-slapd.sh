#!/usr/bin/env bash
# Runs a command with a throw-away OpenLDAP server (Debian's slapd) on 127.0.0.1.
#
#   bash scripts/with-slapd.sh <command...>
#
# The directory is generated at start-up (packages/server/src/test/directory-seed.ts: nested
# OUs and groups, 1 200 people, Active Directory-like entries; with TESSERA_TEST_LDAP_BENCH=1 also
# 10 000 people in 500 groups) and loaded with slapadd. slapd listens on ldap:// (StartTLS
# offered) and ldaps://, with a certificate signed by a CA made for the run. Exports for the
# command:
#   TESSERA_TEST_LDAP_URL=ldap://127.0.0.1:PORT
#   TESSERA_TEST_LDAPS_URL=ldaps://127.0.0.1:PORT
#   TESSERA_TEST_LDAP_CA_FILE=<the CA certificate, PEM>
# and always stops the server and removes its temp dir afterwards. Unlike with-postgres.sh, the
# command runs even when slapd cannot be had (its LDAP tests then skip), except under CI=true,
# where that is a failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-slapd "slapd" "LDAP tests" "$@"

readonly PREFIX=tessera-slapd
readonly TMP_ROOT=${TMPDIR:-/tmp}
readonly REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

install_slapd() {
  local status=0
  apt_install slapd ldap-utils || status=$?
  # The install may have started a slapd of the machine's own despite the policy: stop it.
  pkill -x -F /run/slapd/slapd.pid slapd 2>/dev/null || true
  return "$status"
}

if [[ ! -x /usr/sbin/slapd || ! -x /usr/sbin/slapadd ]]; then
  install_slapd || run_without 'slapd is not installed and apt-get could not install it (apt-get install slapd ldap-utils, as root)' "$@"
fi
command -v openssl >/dev/null || run_without 'openssl is missing (it makes the test certificates)' "$@"

reap_stale slapd.pid

WORK=$(mktemp -d "$TMP_ROOT/$PREFIX.XXXXXX")
echo $$ >"$WORK/owner.pid"
CHILD=''
SLAPD_PID=''

# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  if [[ -n $SLAPD_PID ]] && kill -0 "$SLAPD_PID" 2>/dev/null; then
    kill -INT "$SLAPD_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$SLAPD_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SLAPD_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mkdir -p "$WORK/db"

# A CA of the run and a server certificate for 127.0.0.1 and localhost.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj '/CN=Tessera test LDAP CA' \
  -keyout "$WORK/ca.key" -out "$WORK/ca.pem" >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj '/CN=localhost' \
  -keyout "$WORK/server.key" -out "$WORK/server.csr" >/dev/null 2>&1
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$WORK/ext.cnf"
openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial \
  -days 2 -extfile "$WORK/ext.cnf" -out "$WORK/server.pem" >/dev/null 2>&1

cat >"$WORK/slapd.conf" <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
include $REPO/scripts/slapd/ad-compat.schema
pidfile $WORK/slapd.pid
argsfile $WORK/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
TLSCACertificateFile $WORK/ca.pem
TLSCertificateFile $WORK/server.pem
TLSCertificateKeyFile $WORK/server.key
sizelimit 500

database mdb
maxsize 2147483648
suffix "dc=tessera,dc=test"
rootdn "cn=admin,dc=tessera,dc=test"
rootpw Slapd-admin-pass-1
directory $WORK/db
index objectClass eq
index uid,cn,mail,sAMAccountName,userPrincipalName eq
index entryUUID,objectGUID eq
index member eq
# The reader gets 500 entries per search, as Active Directory gives 1 000: more only by paging.
limits dn.exact="cn=reader,dc=tessera,dc=test" size.soft=500 size.hard=500 size.prtotal=unlimited
access to attrs=userPassword by self write by anonymous auth by * none
access to * by users read by * none
EOF

if ! slaptest -u -f "$WORK/slapd.conf" >"$WORK/slaptest.log" 2>&1; then
  cat "$WORK/slaptest.log" >&2
  say 'ERROR: the slapd configuration is refused (output above).'
  exit 1
fi

seed_args=()
[[ ${TESSERA_TEST_LDAP_BENCH:-} == 1 ]] && seed_args+=(--bench)
(cd "$REPO" && node --import tsx packages/server/src/test/directory-seed.ts "${seed_args[@]}") >"$WORK/seed.ldif"
if ! slapadd -q -f "$WORK/slapd.conf" -l "$WORK/seed.ldif" >"$WORK/slapadd.log" 2>&1; then
  tail -n 20 "$WORK/slapadd.log" >&2
  say 'ERROR: slapadd could not load the test directory (output above).'
  exit 1
fi

# A port picked as free can be taken before slapd binds it: try a few.
for _ in 1 2 3 4 5; do
  PLAIN=$(free_port)
  SECURE=$(free_port)
  [[ $PLAIN != "$SECURE" ]] || continue
  slapd -f "$WORK/slapd.conf" -h "ldap://127.0.0.1:$PLAIN/ ldaps://127.0.0.1:$SECURE/" >"$WORK/slapd.log" 2>&1 || true
  for _ in $(seq 50); do
    [[ -s $WORK/slapd.pid ]] && break
    sleep 0.1
  done
  SLAPD_PID=$(cat "$WORK/slapd.pid" 2>/dev/null || true)
  if [[ -n $SLAPD_PID ]] && kill -0 "$SLAPD_PID" 2>/dev/null; then break; fi
  SLAPD_PID=''
done
if [[ -z $SLAPD_PID ]]; then
  cat "$WORK/slapd.log" >&2 || true
  say 'ERROR: slapd did not start (log above).'
  exit 1
fi

export TESSERA_TEST_LDAP_URL="ldap://127.0.0.1:$PLAIN"
export TESSERA_TEST_LDAPS_URL="ldaps://127.0.0.1:$SECURE"
export TESSERA_TEST_LDAP_CA_FILE="$WORK/ca.pem"
say "slapd $(slapd -VV 2>&1 | sed -n 's/.*slapd \([0-9.]*\).*/\1/p' | head -n 1) started on 127.0.0.1:$PLAIN (ldaps :$SECURE), $(grep -c '^dn: ' "$WORK/seed.ldif") entries (stopped when the command ends)"

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
