#!/usr/bin/env bash
# Installs the real Claude Code, Codex and Gemini CLIs (pinned) into DIR, for
# test/real-clients/real-clients.test.ts and test/real-clients/gemini.test.ts:
#
#   scripts/install-real-clients.sh /tmp/real-clients
#   MODEL_GATEWAY_REAL_CLIENTS_DIR=/tmp/real-clients npx vitest run test/real-clients
#
# Needs npm and the npm registry (nothing else). Claude Code and Codex ship their
# native binaries in platform-specific optional dependencies; Claude Code's postinstall
# links its binary into bin/claude.exe, so its install script is allowed in
# package.json (npm >= 11.19 blocks dependency install scripts by default). The
# Gemini CLI is one JavaScript bundle; its optional native modules (a terminal and
# a keychain) are not needed to run it non-interactively.
# DIR is a dedicated folder: its package.json is (re)written.
# Prints nothing on success; on failure prints npm's errors and exits non-zero.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.197
CODEX_VERSION=0.169.0
GEMINI_CLI_VERSION=0.61.0

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir=$1
mkdir -p "$dir"
cd "$dir"
cat > package.json <<JSON
{
  "name": "model-gateway-real-clients",
  "private": true,
  "dependencies": {
    "@anthropic-ai/claude-code": "${CLAUDE_CODE_VERSION}",
    "@openai/codex": "${CODEX_VERSION}",
    "@google/gemini-cli": "${GEMINI_CLI_VERSION}"
  },
  "allowScripts": {
    "@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}": true
  }
}
JSON

npm install --no-audit --no-fund --loglevel=error > /dev/null

# The clients must run and be the pinned versions.
claude_version=$(node_modules/.bin/claude --version 2>&1 || true)
codex_version=$(node_modules/.bin/codex --version 2>&1 || true)
gemini_version=$(node_modules/.bin/gemini --version 2>&1 || true)
case "$claude_version" in
  "${CLAUDE_CODE_VERSION} "*) ;;
  *) echo "claude --version gave: ${claude_version}" >&2; exit 1 ;;
esac
case "$codex_version" in
  "codex-cli ${CODEX_VERSION}") ;;
  *) echo "codex --version gave: ${codex_version}" >&2; exit 1 ;;
esac
case "$gemini_version" in
  "${GEMINI_CLI_VERSION}") ;;
  *) echo "gemini --version gave: ${gemini_version}" >&2; exit 1 ;;
esac
