#!/usr/bin/env bash
# Prepares this machine for the container tests (npm run test:deploy): rootful podman with the runc
# runtime, and debootstrap to build the base image from Debian's packages (scripts/build-base-image.sh).
# Installs the Debian packages podman, runc and debootstrap when missing, and writes a containers.conf
# drop-in with `default_ulimits = []` (podman's default ulimits, nofile among them, cannot be set inside
# the sandbox this machine runs in: every `podman run` failed on them) and runtime = "runc" (crun is not
# what works here). Safe to run twice: it changes nothing that is already so. Without root or apt-get
# it says what is missing and exits 0: the container tests then report themselves skipped.
set -uo pipefail

DROP_IN_DIR=/etc/containers/containers.conf.d
DROP_IN="$DROP_IN_DIR/50-crm-sync.conf"

missing=()
# docker-compose (Debian's 1.29): the compose test's second reader of deploy/compose.yaml (`config`).
for tool in podman runc debootstrap docker-compose; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "Missing ${missing[*]} and this script cannot install them (needs root and apt-get): install Debian's podman, runc and debootstrap packages. The container tests will be skipped." >&2
    exit 0
  fi
  echo "Installing Debian's ${missing[*]} for the container tests"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; }; then
    echo "apt-get could not install ${missing[*]}: the container tests will be skipped." >&2
    exit 0
  fi
else
  echo "podman, runc and debootstrap present"
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "Not root: $DROP_IN is not written (the container tests need rootful podman)." >&2
  exit 0
fi

wanted='[containers]
default_ulimits = []

[engine]
runtime = "runc"'
if [ -f "$DROP_IN" ] && [ "$(cat "$DROP_IN")" = "$wanted" ]; then
  echo "$DROP_IN already sets default_ulimits = [] and runtime = \"runc\""
else
  mkdir -p "$DROP_IN_DIR"
  printf '%s\n' "$wanted" >"$DROP_IN"
  echo "Wrote $DROP_IN (default_ulimits = [], runtime = \"runc\")"
fi
exit 0
