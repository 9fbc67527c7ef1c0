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
