#!/bin/sh
# CI record job: the official record of this OS into $1, and beside it
# every runtime's conformance (conform-<os>-<arch>.json, which crossrun
# record writes too). crossrun itself refuses unless the checkout is a
# clean main in CI.
set -eu
cd "$(dirname "$0")/.."
out=${1:?usage: ci/record.sh OUTPUT_DIRECTORY}
./ci/deps
make
./build/crossrun record --output-directory "$out" --progress
