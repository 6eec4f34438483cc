#!/bin/sh
# CI merge job: the per-OS evidence in $1 merged strictly (all three OSes
# required, every file's artifact attestation verified against this
# repository by gh attestation verify, which needs GH_TOKEN), then the
# reports into $2; the Markdown also goes to the job summary (crossrun
# report appends it to $GITHUB_STEP_SUMMARY).
set -eu
cd "$(dirname "$0")/.."
in=${1:?usage: ci/merge.sh EVIDENCE_DIRECTORY REPORT_DIRECTORY}
out=${2:?usage: ci/merge.sh EVIDENCE_DIRECTORY REPORT_DIRECTORY}
repo=${GITHUB_REPOSITORY:?ci/merge.sh verifies attestations: set GITHUB_REPOSITORY to OWNER/REPO}
./ci/deps
make build/crossrun
mkdir -p "$out"
./build/crossrun merge --require linux,macos,windows --attestation-repo "$repo" \
  --out "$out/merged.json" "$in"/evidence-*.json
./build/crossrun report "$out/merged.json" --markdown "$out/report.md" \
  --html "$out/report.html" --junit "$out/junit.xml"
