#!/usr/bin/env bash
# Runs a command with a throw-away Apache httpd whose mod_authnz_ldap (a real LDAP client)
# protects a page with HTTP basic authentication against Tessera's LDAP server, on 127.0.0.1.
#
#   bash scripts/with-apache-ldap.sh <command...>
#
# Apache needs the LDAP server's address and an application's service account, which the test
# knows only once its Tessera server and company exist; so this script prepares everything
# (Debian's apache2, a temp dir, a free port, a page) and exports a command that writes the
# configuration and starts (or restarts) Apache:
#   TESSERA_TEST_APACHE_LDAP_PORT=<port Apache listens on, 127.0.0.1>
#   TESSERA_TEST_APACHE_LDAP_START=<command>
#     run as: "$TESSERA_TEST_APACHE_LDAP_START" <LDAP URL> <bind DN> <bind password> <people DN>
#   TESSERA_TEST_APACHE_LDAP_LOG=<Apache's error log>
# The protected page is http://127.0.0.1:PORT/protected/index.shtml (Require valid-user: the
# person is searched by uid under the people DN with the service account, then bound as with
# their password); it shows REMOTE_USER and the person's mail (AUTHENTICATE_MAIL). mod_ldap's
# caches are off, so that every request asks the server. Apache is always stopped and the temp
# dir removed afterwards. The command runs even when Apache cannot be had (its tests then skip),
# except under CI=true, where that is a failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-apache-ldap "Apache httpd with mod_authnz_ldap" "Apache LDAP client tests" "$@"

readonly PREFIX=tessera-apache-ldap
readonly TMP_ROOT=${TMPDIR:-/tmp}
readonly MODULES=/usr/lib/apache2/modules

if [[ ! -x /usr/sbin/apache2 || ! -f $MODULES/mod_authnz_ldap.so ]]; then
  apt_install apache2 || run_without 'apache2 is not installed and apt-get could not install it (apt-get install apache2, as root)' "$@"
fi

reap_stale httpd.pid

WORK=$(mktemp -d "$TMP_ROOT/$PREFIX.XXXXXX")
echo $$ >"$WORK/owner.pid"
CHILD=''

# shellcheck disable=SC2317 # invoked by the EXIT trap
cleanup() {
  local status=$? pid
  trap - EXIT INT TERM HUP
  if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
    kill -TERM "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  pid=$(cat "$WORK/httpd.pid" 2>/dev/null || true)
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

PORT=$(free_port)
# Apache's children run as an unprivileged user when started as root: the page must be theirs to read.
chmod 755 "$WORK"
mkdir -p "$WORK/htdocs/protected"
cat >"$WORK/htdocs/protected/index.shtml" <<'EOF'
<!doctype html>
<html><head><title>Protected by LDAP</title></head>
<body>
<p>Signed in as <strong id="user"><!--#echo var="REMOTE_USER" --></strong></p>
<p>Email: <span id="email"><!--#echo var="AUTHENTICATE_MAIL" --></span></p>
</body></html>
EOF
chmod -R a+rX "$WORK/htdocs"

# The command that writes the configuration for an LDAP server and (re)starts Apache. The bind
# password is written to the configuration only (mode 600), never on a command line of Apache.
cat >"$WORK/start.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
url=\${1:?usage: start.sh <LDAP URL> <bind DN> <bind password> <people DN>}
bind_dn=\${2:?bind DN}
bind_password=\${3:?bind password}
people=\${4:?people DN}
umask 077
cat >"$WORK/httpd.conf" <<CONF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile $WORK/httpd.pid
ErrorLog $WORK/error.log
LogLevel warn authnz_ldap:debug ldap:debug
Mutex file:$WORK
DefaultRuntimeDir $WORK
LoadModule mpm_event_module $MODULES/mod_mpm_event.so
LoadModule authn_core_module $MODULES/mod_authn_core.so
LoadModule authz_core_module $MODULES/mod_authz_core.so
LoadModule authz_user_module $MODULES/mod_authz_user.so
LoadModule auth_basic_module $MODULES/mod_auth_basic.so
LoadModule ldap_module $MODULES/mod_ldap.so
LoadModule authnz_ldap_module $MODULES/mod_authnz_ldap.so
LoadModule mime_module $MODULES/mod_mime.so
LoadModule include_module $MODULES/mod_include.so
DocumentRoot $WORK/htdocs
TypesConfig /dev/null
AddType text/html .shtml
AddOutputFilter INCLUDES .shtml
LDAPCacheEntries 0
LDAPOpCacheEntries 0
LDAPConnectionPoolTTL 0
<Directory $WORK/htdocs>
  Options +Includes
  Require all granted
</Directory>
<Location /protected>
  AuthType Basic
  AuthName "Tessera LDAP test"
  AuthBasicProvider ldap
  AuthLDAPURL "\$url/\$people?uid,mail?one?(objectClass=inetOrgPerson)"
  AuthLDAPBindDN "\$bind_dn"
  AuthLDAPBindPassword "\$bind_password"
  Require valid-user
</Location>
CONF
if [[ -s $WORK/httpd.pid ]] && kill -0 "\$(cat $WORK/httpd.pid)" 2>/dev/null; then
  kill -TERM "\$(cat $WORK/httpd.pid)"
  for _ in \$(seq 50); do kill -0 "\$(cat $WORK/httpd.pid 2>/dev/null)" 2>/dev/null || break; sleep 0.1; done
fi
rm -f "$WORK/httpd.pid"
/usr/sbin/apache2 -f "$WORK/httpd.conf" -k start
for _ in \$(seq 100); do
  [[ -s $WORK/httpd.pid ]] && (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null && exit 0
  sleep 0.1
done
cat "$WORK/error.log" >&2 || true
echo 'Apache did not start (log above)' >&2
exit 1
EOF
chmod 755 "$WORK/start.sh"

export TESSERA_TEST_APACHE_LDAP_PORT=$PORT
export TESSERA_TEST_APACHE_LDAP_START="$WORK/start.sh"
export TESSERA_TEST_APACHE_LDAP_LOG="$WORK/error.log"
say "$(/usr/sbin/apache2 -v | sed -n 's/^Server version: //p') with mod_authnz_ldap ready on 127.0.0.1:$PORT (started by the tests, stopped when the command ends)"

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
