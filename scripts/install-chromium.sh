#!/usr/bin/env bash
# Installs what the console's browser tests need: Debian's chromium package (playwright-core drives it;
# no browser is ever downloaded by the tests). Safe to run twice. Without root or apt it says what to do
# and exits 0: the browser tests then report themselves skipped.
set -uo pipefail
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || [ -n "${CHROMIUM_PATH:-}" ]; then
  echo "Chromium present: $(command -v chromium || echo "${CHROMIUM_PATH:-}")"
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "Chromium is not installed and this script cannot install it (needs root and apt-get): install Debian's chromium package, or set CHROMIUM_PATH. The browser tests will be skipped." >&2
  exit 0
fi
echo "Installing Debian's chromium package for the browser tests"
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq chromium; }; then
  echo "apt-get could not install chromium: the browser tests will be skipped." >&2
fi
exit 0
