#!/usr/bin/env bash
# CI step for the end-to-end tests (called from .ci/run after the unit tests):
# installs what the hosts need, then runs `npm run test:e2e` (code-server, the web
# workbench, and the packaged .vsix installed into code-server).
#   apt:  chromium (the browser playwright drives), libkrb5-dev (code-server's native build)
#   npm:  Node 24 + code-server into .cache/code-server-env (scripts/setup-code-server.sh)
# Needs root for apt (or the packages already installed); network: Debian apt + npm registry only.
# Env: E2E_HOSTS (default code-server,web,code-server-installed), RUN_TIMEOUT_S (per host, 300).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
{ [ -f /usr/include/gssapi/gssapi.h ] || [ -f /usr/include/gssapi.h ]; } || need+=(libkrb5-dev)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "ci-e2e: missing apt packages ${need[*]} and not root: apt-get install -y ${need[*]}" >&2
    exit 2
  fi
  echo "ci-e2e: apt-get install ${need[*]}"
  apt-get update -qq
  apt-get install -y -qq "${need[@]}" >/dev/null
fi

bash scripts/setup-code-server.sh

# the runners have their own deadlines (exit 124); this one only guards against the unforeseen
timeout --kill-after=30 1800 npm run -s test:e2e -- --hosts="${E2E_HOSTS:-code-server,web,code-server-installed}"
