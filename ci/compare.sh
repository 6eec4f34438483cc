#!/bin/sh
# CI compare job: a quick run of this checkout compared with the baseline
# in $1 (ci/baseline.sh); the Markdown goes to the job summary (crossrun
# compare appends it to $GITHUB_STEP_SUMMARY). With CROSSRUN_COMPARE_GATE
# set to true, a regression fails the job (--fail-on-regression).
set -eu
cd "$(dirname "$0")/.."
baseline=${1:?usage: ci/compare.sh BASELINE.json}
./ci/deps
make quick
if [ ! -f "$baseline" ]; then
  echo "no baseline ($baseline): nothing to compare with" |
    tee -a "${GITHUB_STEP_SUMMARY:-/dev/null}"
  exit 0
fi
gate=
[ "${CROSSRUN_COMPARE_GATE:-}" = true ] && gate=--fail-on-regression
# shellcheck disable=SC2086 # $gate is one word or none
./build/crossrun compare "$baseline" crossrun-quick.json $gate \
  --markdown compare.md --json compare.json
