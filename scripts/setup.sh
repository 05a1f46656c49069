#!/usr/bin/env bash
# Installs every Debian package Strata needs to build, test and benchmark.
# Idempotent: apt-get skips what is already installed. Never installs an
# unversioned libboost-*-dev or libasio-dev: they conflict with libboost1.81-dev.
#   scripts/setup.sh          the build and the tests
#   scripts/setup.sh --fuzz   clang 14 with libFuzzer, for scripts/fuzz.sh
#   scripts/setup.sh --browser  Chromium, which the test of strata report opens the report in
#   scripts/setup.sh --slurm    Slurm (slurmctld, slurmd, the client) and MUNGE, for the single-node
#                               cluster the Slurm test starts itself (tests/support/slurm_cluster.sh)
#   scripts/setup.sh --agents   the agent CLIs the adapter tests run (Codex, Claude Code, Gemini CLI,
#                               OpenCode, Qwen Code, pi, Copilot CLI), the versions pinned in tests/agents/package-lock.json,
#                               from the npm registry into tests/agents/node_modules (no global
#                               install); skipped when that lock is installed
set -euo pipefail

if [ "${1:-}" = --agents ]; then
  cd "$(dirname "$0")/../tests/agents"
  stamp=node_modules/.strata-lock.sha256
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then exit 0; fi
  command -v npm >/dev/null || bash "$0"  # nodejs (with npm) is in the base package list
  # npm install, not npm ci: npm ci refuses this lock (opencode-ai lists platform packages the lock
  # leaves out on other platforms); the exact versions in package.json and the integrity hashes
  # in the lock pin the same tree.
  # --ignore-scripts, then only the two install steps the CLIs need: Claude Code's and OpenCode's
  # copy the native binary out of their platform package over a placeholder (read: local files
  # only, no download); the others (node-pty's node-gyp build for Gemini CLI's optional terminal)
  # are not needed headless.
  npm install --no-audit --no-fund --ignore-scripts --no-save --loglevel=error
  (cd node_modules/@anthropic-ai/claude-code && node install.cjs)
  (cd node_modules/opencode-ai && node postinstall.mjs)
  # Qwen Code's package ships its ripgrep without the execute bit (it would fall back to a slower
  # grep of its own, with a warning on every run).
  chmod +x node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg
  for agent in codex claude gemini opencode qwen pi copilot; do node_modules/.bin/$agent --version >/dev/null; done
  echo "$want" >"$stamp"
  exit 0
fi

packages=(
  build-essential cmake ninja-build g++ pkg-config
  libboost1.81-dev libssl-dev openssl nlohmann-json3-dev libspdlog-dev
  catch2 libcli11-dev
  python3 python3-jsonschema python3-yaml nodejs curl util-linux procps
  bubblewrap git
)
case "${1:-}" in
  --fuzz) packages=(clang libclang-rt-14-dev) ;;
  --browser) packages=(chromium) ;;
  --slurm) packages=(slurmctld slurmd slurm-client munge) ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
