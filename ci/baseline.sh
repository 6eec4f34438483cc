#!/bin/sh
# CI compare job: the newest official merged evidence of main, which the
# record workflow keeps as the artifact crossrun-baseline, into $1 (as
# $1/merged.json). Needs GH_TOKEN for gh. Exits 0 without a file when no
# record run of main has kept one yet (the first pull requests).
set -eu
out=${1:?usage: ci/baseline.sh DIRECTORY}
mkdir -p "$out"
for id in $(gh run list --workflow record.yml --branch main --status success \
  --limit 20 --json databaseId --jq '.[].databaseId'); do
  if gh run download "$id" --name crossrun-baseline --dir "$out" 2>/dev/null &&
    [ -f "$out/merged.json" ]; then
    echo "baseline: record run $id of main"
    exit 0
  fi
done
echo "baseline: no record run of main kept crossrun-baseline yet"
