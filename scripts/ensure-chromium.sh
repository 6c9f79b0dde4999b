#!/usr/bin/env bash
# The dashboard's end-to-end test drives Debian's Chromium with playwright-core (no browser download).
# Install it when missing and we are allowed to (root with apt-get); otherwise say what to do.
set -euo pipefail
for b in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$b" ] && [ -x "$b" ]; then exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser test..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser test needs Chromium: install it (Debian: apt-get install chromium) or set CHROMIUM_PATH." >&2
exit 1
