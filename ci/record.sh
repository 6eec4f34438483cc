#!/bin/sh
# CI record job: the official record of this OS into $1. crossrun itself
# refuses unless the checkout is a clean main in CI.
set -eu
cd "$(dirname "$0")/.."
out=${1:?usage: ci/record.sh OUTPUT_DIRECTORY}
./ci/deps
make
# The record, then every runtime's conformance beside it, with the same
# provenance (conform-<os>-<arch>.json); both run, either fails the job.
status=0
./build/crossrun record --output-directory "$out" --progress || status=$?
case $(uname -s) in
  Darwin) os=macos ;;
  MINGW* | MSYS* | CYGWIN*) os=windows ;;
  *) os=linux ;;
esac
./build/crossrun conform --record \
  --out "$out/conform-$os-$(uname -m).json" || [ "$status" -ne 0 ] || status=1
exit "$status"
