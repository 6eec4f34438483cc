#!/bin/sh
# The go command for the go runtime, from matrix.yaml and tests/run. All it
# writes stays in build/lanes/go/: the build cache, the module cache (never
# filled: the lane needs no module, the packer's is vendored, the proxy is
# off) and the telemetry counters the go command keeps in its config
# folder. The user's go env file and GOFLAGS are not read.
#
#   sh lanes/go/go.sh version | build | test | vet | package OUT
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
state="$root/build/lanes/go"
if ! command -v go >/dev/null 2>&1; then
  echo "go.sh: go is not installed or not on PATH" >&2
  exit 127
fi
mkdir -p "$state"
GOCACHE="$state/cache"
GOMODCACHE="$state/modcache"
XDG_CONFIG_HOME="$state/config"
GOENV=off
GOFLAGS="-buildvcs=false -trimpath"
GOTOOLCHAIN=local
GOPROXY=off
GOWORK=off
export GOCACHE GOMODCACHE XDG_CONFIG_HOME GOENV GOFLAGS GOTOOLCHAIN GOPROXY GOWORK
cd "$root/lanes/go"
case "${1:-}" in
  version) exec go version ;;
  build)
    # The go command takes a second to find its cache up to date: the
    # binaries are kept without it when this go built them and no file of
    # the lane (a deleted one changes its folder) nor this script is newer
    # than the stamp, which is written before the build so that an edit
    # made while it runs is newer.
    stamp="$state/build.stamp"
    v=$(go version)
    if [ -f "$stamp" ] && [ -x "$state/client" ] && [ -x "$state/server" ] &&
      [ "$(cat "$stamp")" = "$v" ] &&
      [ -z "$(find . "$root/lanes/go/go.sh" -newer "$stamp" 2>/dev/null | head -1)" ]; then
      exit 0
    fi
    printf '%s\n' "$v" >"$stamp"
    go build -o "$state/" ./cmd/client ./cmd/server || {
      rm -f "$stamp"
      exit 1
    }
    ;;
  test) exec go test -count=1 ./... ;;
  vet) exec go vet ./... ;;
  package)
    [ $# -eq 2 ] || { echo "usage: go.sh package OUT" >&2; exit 2; }
    (cd modzip && go build -o "$state/modzip" .)
    exec "$state/modzip" -dir . -version v1.0.0 -out "$2"
    ;;
  *)
    echo "usage: go.sh version | build | test | vet | package OUT" >&2
    exit 2
    ;;
esac
