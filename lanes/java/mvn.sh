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
# Batch mode: no colours, no download progress; nice: the build and the
# tests share the machine with what else runs. The package command is not
# niced: crossrun runs it before any sample, side by side with the other
# runtimes' packings, which it would only wait for.
mvn_plain="mvn -B -ntp -Dstyle.color=never"
mvn=$mvn_plain
command -v nice >/dev/null 2>&1 && mvn="nice -n 10 $mvn"
# Maven's own JVM lives for seconds: the first JIT tier alone starts it about
# twice as fast (the lanes' JVMs keep their own flags), and without its
# performance counters it leaves no /tmp/hsperfdata_* behind. The caller's
# MAVEN_OPTS come last, so they win.
MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData ${MAVEN_OPTS:-}"
export MAVEN_OPTS
jar=$root/build/lanes/java/target/crossrun-lane-java-1.0.0.jar
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
    jv=$(java -XX:-UsePerfData -version 2>&1 | head -1)
    mv=$(mvn -B -Dstyle.color=never -v 2>/dev/null | sed "s/$(printf "\033")\\[[0-9;]*m//g" | head -1 | sed "s/ (.*//")
    echo "$jv, $mv"
    ;;
  build)
    # Maven takes seconds to find nothing to do: a jar newer than every
    # source, folder (a deleted file changes its folder) and this script is
    # kept without starting it.
    if [ -f "$jar" ] && [ -z "$(find pom.xml src "$root/lanes/java/mvn.sh" -newer "$jar" 2>/dev/null | head -1)" ]; then
      exit 0
    fi
    quiet -o package -Dmaven.test.skip=true
    # The jar plugin leaves an up-to-date jar untouched: its time then says
    # when this check last passed.
    touch "$jar"
    ;;
  test) exec $mvn -o test ;;
  package)
    [ $# -eq 2 ] || { echo "usage: mvn.sh package OUT" >&2; exit 2; }
    # maven.test.skip: the jar holds no test, so the tests are not
    # compiled either (a second less).
    mvn=$mvn_plain
    quiet -o package -Dmaven.test.skip=true "-Dlane.target=$2"
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
