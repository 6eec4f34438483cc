#!/bin/sh
# CI smoke job: dependencies, then the quick matrix (every lane once, a
# small workload; no performance claims).
set -eu
cd "$(dirname "$0")/.."
./ci/deps
make quick
