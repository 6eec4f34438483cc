#!/bin/sh
# The Maven commands of the java runtime, from matrix.yaml, tests/run and
# ci/deps. Everything Maven builds goes to build/lanes/java/target (the pom's
# lane.target), or to the package's own folder; the plugins and JUnit come
# from Maven's local repository (~/.m2/repository unless MAVEN_OPTS or
# settings say otherwise), which `fetch` fills once from Maven Central:
# build, test and package then run offline.
#
#   sh lanes/java/mvn.sh version | build | test | package OUT | fetch
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "mvn.sh: $tool is not installed or not on PATH" >&2
    exit 127
  fi
done
cd "$root/lanes/java"
# Batch mode: no colours, no download progress; nice: the build shares the
# machine with the lanes it measures.
mvn="mvn -B -ntp -Dstyle.color=never"
command -v nice >/dev/null 2>&1 && mvn="nice -n 10 $mvn"
# Runs mvn quietly: its output (without the colour resets Maven 3.8 writes
# even with -q) is shown only when it fails.
quiet() {
  rc=0
  log=$($mvn "$@" 2>&1) || rc=$?
  if [ $rc -ne 0 ]; then
    printf '%s\n' "$log" | sed "s/$(printf '\033')\\[[0-9;]*m//g" >&2
  fi
  return $rc
}
case "${1:-}" in
  version)
    jv=$(java -version 2>&1 | head -1)
    mv=$(mvn -B -Dstyle.color=never -v 2>/dev/null | sed "s/$(printf "\033")\\[[0-9;]*m//g" | head -1 | sed "s/ (.*//")
    echo "$jv, $mv"
    ;;
  build) quiet -o package -DskipTests ;;
  test) exec $mvn -o test ;;
  package)
    [ $# -eq 2 ] || { echo "usage: mvn.sh package OUT" >&2; exit 2; }
    quiet -o package -DskipTests "-Dlane.target=$2"
    ;;
  fetch)
    # One pass of the lifecycle that package and test use, online, with one
    # quick test: it resolves every plugin, JUnit and Surefire's JUnit
    # Platform provider. Offline first, so a filled repository costs no
    # network.
    out=$(mktemp -d "${TMPDIR:-/tmp}/crossrun-java-fetch-XXXXXX")
    trap 'rm -rf "$out"' EXIT
    set -- -q package "-Dtest=VectorsTest#payloads" "-Dlane.target=$out"
    quiet -o "$@" 2>/dev/null || quiet "$@"
    ;;
  *)
    echo "usage: mvn.sh version | build | test | package OUT | fetch" >&2
    exit 2
    ;;
esac
