#!/usr/bin/env bash
# Runs a command with a throw-away Apache httpd and mod_auth_cas (a real CAS client) on 127.0.0.1.
#
#   bash scripts/with-apache-cas.sh <command...>
#
# Apache needs the address of the CAS server it protects its page with, which the test knows
# only once its Tessera server and company exist; so this script prepares everything (Debian's
# apache2 and libapache2-mod-auth-cas, a temp dir, a free port, a page) and exports a command
# that writes the configuration and starts (or restarts) Apache:
#   TESSERA_TEST_APACHE_CAS_PORT=<port Apache listens on, 127.0.0.1>
#   TESSERA_TEST_APACHE_CAS_START=<command>   run as: "$TESSERA_TEST_APACHE_CAS_START" <CAS server URL>
# The protected page is http://127.0.0.1:PORT/protected/index.shtml: it shows REMOTE_USER and the
# released attributes (CAS-name, CAS-email). Single sign-out (CASSSOEnabled) is on. Apache is
# always stopped and the temp dir removed afterwards. Like with-slapd.sh, the command runs even
# when Apache cannot be had (its CAS client tests then skip), except under CI=true, where that is
# a failure.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/lib/test-service.sh"
service_init with-apache-cas "Apache httpd with mod_auth_cas" "CAS client tests" "$@"

readonly PREFIX=tessera-apache-cas
readonly TMP_ROOT=${TMPDIR:-/tmp}
readonly MODULES=/usr/lib/apache2/modules

if [[ ! -x /usr/sbin/apache2 || ! -f $MODULES/mod_auth_cas.so ]]; then
  apt_install apache2 libapache2-mod-auth-cas || run_without 'apache2 or mod_auth_cas is not installed and apt-get could not install them (apt-get install apache2 libapache2-mod-auth-cas, as root)' "$@"
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
# Apache's children run as an unprivileged user when started as root: the page and the cookie
# cache must be theirs to read and write.
chmod 755 "$WORK"
mkdir -p "$WORK/htdocs/protected" "$WORK/cas-cache"
chmod 1777 "$WORK/cas-cache"
cat >"$WORK/htdocs/protected/index.shtml" <<'EOF'
<!doctype html>
<html><head><title>Protected by CAS</title></head>
<body>
<p>Signed in as <strong id="user"><!--#echo var="REMOTE_USER" --></strong></p>
<p>Name: <span id="name"><!--#echo var="HTTP_CAS_NAME" --></span></p>
<p>Email: <span id="email"><!--#echo var="HTTP_CAS_EMAIL" --></span></p>
</body></html>
EOF
chmod -R a+rX "$WORK/htdocs"

# The command that writes the configuration for a CAS server and (re)starts Apache.
cat >"$WORK/start.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
server=\${1:?usage: start.sh <CAS server URL>}
cat >"$WORK/httpd.conf" <<CONF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$PORT
PidFile $WORK/httpd.pid
ErrorLog $WORK/error.log
LogLevel warn auth_cas:debug
Mutex file:$WORK
DefaultRuntimeDir $WORK
LoadModule mpm_event_module $MODULES/mod_mpm_event.so
LoadModule authn_core_module $MODULES/mod_authn_core.so
LoadModule authz_core_module $MODULES/mod_authz_core.so
LoadModule authz_user_module $MODULES/mod_authz_user.so
LoadModule mime_module $MODULES/mod_mime.so
LoadModule include_module $MODULES/mod_include.so
LoadModule auth_cas_module $MODULES/mod_auth_cas.so
DocumentRoot $WORK/htdocs
TypesConfig /dev/null
AddType text/html .shtml
AddOutputFilter INCLUDES .shtml
CASCookiePath $WORK/cas-cache/
CASLoginURL \$server/login
CASValidateURL \$server/p3/serviceValidate
CASVersion 2
CASSSOEnabled On
CASAttributePrefix CAS-
CASDebug On
<Directory $WORK/htdocs>
  Options +Includes
  Require all granted
</Directory>
<Location /protected>
  AuthType CAS
  # Attributes reach the page as request headers only with CASAuthNHeader; headers of those
  # names sent by the browser are removed first.
  CASAuthNHeader CAS-User
  CASScrubRequestHeaders On
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

export TESSERA_TEST_APACHE_CAS_PORT=$PORT
export TESSERA_TEST_APACHE_CAS_START="$WORK/start.sh"
export TESSERA_TEST_APACHE_CAS_LOG="$WORK/error.log"
say "$(/usr/sbin/apache2 -v | sed -n 's/^Server version: //p') with mod_auth_cas ready on 127.0.0.1:$PORT (started by the tests, stopped when the command ends)"

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
