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
  build) exec go build -o "$state/" ./cmd/client ./cmd/server ;;
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
