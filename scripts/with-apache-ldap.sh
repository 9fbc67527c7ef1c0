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
#             [<CA file the LDAP server's certificate is verified with> [STARTTLS]]
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

if [[ ! -x /usr/sbin/apache2 || ! -f $APACHE_MODULES/mod_authnz_ldap.so ]]; then
  apt_install apache2 || run_without 'apache2 is not installed and apt-get could not install it (apt-get install apache2, as root)' "$@"
fi

apache_prepare
cat >"$WORK/htdocs/protected/index.shtml" <<'EOF'
<!doctype html>
<html><head><title>Protected by LDAP</title></head>
<body>
<p>Signed in as <strong id="user"><!--#echo var="REMOTE_USER" --></strong></p>
<p>Email: <span id="email"><!--#echo var="AUTHENTICATE_MAIL" --></span></p>
</body></html>
EOF
chmod -R a+rX "$WORK/htdocs"

# This Apache's part of the configuration, for an LDAP server. The bind password is written to
# the configuration only (mode 600), never on a command line of Apache.
cat >"$WORK/site.sh" <<'EOF'
set -euo pipefail
url=${1:?usage: start.sh <LDAP URL> <bind DN> <bind password> <people DN> [<CA file> [STARTTLS]]}
bind_dn=${2:?bind DN}
bind_password=${3:?bind password}
people=${4:?people DN}
ca=${5:-}
mode=${6:-}
if [[ -n $ca ]]; then
  printf 'LDAPTrustedGlobalCert CA_BASE64 %s\nLDAPVerifyServerCert On\n' "$ca"
fi
cat <<CONF
LDAPCacheEntries 0
LDAPOpCacheEntries 0
LDAPConnectionPoolTTL 0
<Location /protected>
  AuthType Basic
  AuthName "Tessera LDAP test"
  AuthBasicProvider ldap
  AuthLDAPURL "$url/$people?uid,mail?one?(objectClass=inetOrgPerson)" $mode
  AuthLDAPBindDN "$bind_dn"
  AuthLDAPBindPassword "$bind_password"
  Require valid-user
</Location>
CONF
EOF
apache_write_start 'warn authnz_ldap:debug ldap:debug' auth_basic ldap authnz_ldap

export TESSERA_TEST_APACHE_LDAP_PORT=$PORT
export TESSERA_TEST_APACHE_LDAP_START="$WORK/start.sh"
export TESSERA_TEST_APACHE_LDAP_LOG="$WORK/error.log"
say "$(/usr/sbin/apache2 -v | sed -n 's/^Server version: //p') with mod_authnz_ldap ready on 127.0.0.1:$PORT (started by the tests, stopped when the command ends)"

service_run "$@"
