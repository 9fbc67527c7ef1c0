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

if [[ ! -x /usr/sbin/apache2 || ! -f $APACHE_MODULES/mod_auth_cas.so ]]; then
  apt_install apache2 libapache2-mod-auth-cas || run_without 'apache2 or mod_auth_cas is not installed and apt-get could not install them (apt-get install apache2 libapache2-mod-auth-cas, as root)' "$@"
fi

apache_prepare
# Apache's children run as an unprivileged user when started as root: the cookie cache must be
# theirs to write.
mkdir -p "$WORK/cas-cache"
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

# This Apache's part of the configuration, for a CAS server.
cat >"$WORK/site.sh" <<EOF
set -euo pipefail
server=\${1:?usage: start.sh <CAS server URL>}
cat <<CONF
CASCookiePath $WORK/cas-cache/
CASLoginURL \$server/login
CASValidateURL \$server/p3/serviceValidate
CASVersion 2
CASSSOEnabled On
CASAttributePrefix CAS-
CASDebug On
<Location /protected>
  AuthType CAS
  # Attributes reach the page as request headers only with CASAuthNHeader; headers of those
  # names sent by the browser are removed first.
  CASAuthNHeader CAS-User
  CASScrubRequestHeaders On
  Require valid-user
</Location>
CONF
EOF
apache_write_start 'warn auth_cas:debug' auth_cas

export TESSERA_TEST_APACHE_CAS_PORT=$PORT
export TESSERA_TEST_APACHE_CAS_START="$WORK/start.sh"
export TESSERA_TEST_APACHE_CAS_LOG="$WORK/error.log"
say "$(/usr/sbin/apache2 -v | sed -n 's/^Server version: //p') with mod_auth_cas ready on 127.0.0.1:$PORT (started by the tests, stopped when the command ends)"

service_run "$@"
