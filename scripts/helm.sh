#!/usr/bin/env bash
# Finds Helm for the chart's tests and for you, in this order:
#   1. HELM_BIN   2. `helm` on the PATH (Helm 3)   3. the per-user cache
#   4. `go install helm.sh/helm/v3/cmd/helm@<version>` into that cache, from the Go module proxy
#      (several minutes the first time; Go from the PATH or /usr/local/go/bin/go).
# The cache is ${XDG_CACHE_HOME:-~/.cache}/commerce-crm-sync/helm/<version>/helm.
#
#   scripts/helm.sh                 prints the path of helm (last line of stdout); progress on stderr
#   scripts/helm.sh lint deploy/helm/crm-sync --values deploy/helm/crm-sync/ci/lint-values.yaml
#                                   runs helm with these arguments
#
# Exits 3 when no helm can be found or built (no Go), saying why on stderr.
set -euo pipefail

HELM_VERSION=v3.19.0
cache_dir="${XDG_CACHE_HOME:-$HOME/.cache}/commerce-crm-sync/helm/$HELM_VERSION"
progress() { echo "scripts/helm.sh: $*" >&2; }

find_helm() {
  if [ -n "${HELM_BIN:-}" ]; then
    [ -x "$HELM_BIN" ] || { progress "HELM_BIN=$HELM_BIN is not an executable file"; return 1; }
    echo "$HELM_BIN"; return 0
  fi
  local on_path
  if on_path=$(command -v helm 2>/dev/null) && "$on_path" version --short 2>/dev/null | grep -q '^v3\.'; then
    echo "$on_path"; return 0
  fi
  if [ -x "$cache_dir/helm" ]; then
    echo "$cache_dir/helm"; return 0
  fi
  local go
  go=$(command -v go 2>/dev/null || true)
  [ -z "$go" ] && [ -x /usr/local/go/bin/go ] && go=/usr/local/go/bin/go
  if [ -z "$go" ]; then
    progress "no helm on the PATH or in $cache_dir, and no Go to build it with: install Helm 3 (https://helm.sh/docs/intro/install/) or Go"
    return 1
  fi
  progress "building Helm $HELM_VERSION with $go install (several minutes the first time) into $cache_dir"
  # Built into a temporary directory, then moved: an interrupted build leaves no half-written helm in the cache.
  local build_dir
  build_dir=$(mktemp -d "${TMPDIR:-/tmp}/helm-build.XXXXXX")
  if ! GOBIN="$build_dir" GOFLAGS=-mod=mod "$go" install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2; then
    rm -rf "$build_dir"
    progress "go install of Helm $HELM_VERSION failed (see above)"
    return 1
  fi
  mkdir -p "$cache_dir"
  mv "$build_dir/helm" "$cache_dir/helm"
  rm -rf "$build_dir"
  progress "built $cache_dir/helm"
  echo "$cache_dir/helm"
}

if ! helm=$(find_helm); then exit 3; fi
if [ "$#" -eq 0 ]; then
  echo "$helm"
else
  exec "$helm" "$@"
fi
