#!/bin/sh
# make check-style (ci/style.sh check) and make style (ci/style.sh fix).
#
# check: every C source and header of the project against .clang-format,
# the shell scripts with shellcheck, the GitHub workflows with actionlint
# (they cannot run here), and each lane's own formatter and linter where its
# toolchain is installed. Every check runs; the failed ones are listed at the
# end and the exit status is 1.
# fix: rewrites the same C files in place with the same clang-format.
#
# clang-format's output changes between major versions, so the check pins
# one: CLANG_FORMAT_MAJOR (Debian 12's clang-format is 14; ci/deps installs
# it). CLANG_FORMAT names another binary of that version.
set -eu
cd "$(dirname "$0")/.."
# No check reads input; cargo's probe of rustc reads stdin (and caches
# what it got), so a caller's stdin must not reach it.
exec </dev/null

CLANG_FORMAT_MAJOR=14
ACTIONLINT_VERSION=v1.7.12
# Built once from the Go module proxy and kept outside the work tree, so a
# fresh clone (as in CI) does not build it again.
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}
ACTIONLINT_DIR=$cache/crossrun/actionlint-$ACTIONLINT_VERSION
ACTIONLINT=${ACTIONLINT:-$ACTIONLINT_DIR/actionlint}

mode=${1:-check}
failed=""

# Folders are split into subfolders over time: find, not a fixed depth.
c_files() {
  find runner evidence platforms protocol lanes/c tests bench \
    -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null | LC_ALL=C sort
}

# Every sh or bash script (by its #! line) of CI, the tests, the benchmark
# and the C, go and java lanes.
shell_scripts() {
  find ci .ci tests bench lanes/c lanes/go lanes/java -type f 2>/dev/null | LC_ALL=C sort |
    while read -r f; do
      case $(head -n 1 "$f") in
        '#!'*sh*) echo "$f" ;;
      esac
    done
}

fail() {
  failed="$failed $1"
}

pick_clang_format() {
  if [ -n "${CLANG_FORMAT:-}" ]; then
    cf=$CLANG_FORMAT
  elif command -v "clang-format-$CLANG_FORMAT_MAJOR" >/dev/null 2>&1; then
    cf=clang-format-$CLANG_FORMAT_MAJOR
  else
    cf=clang-format
  fi
  if ! command -v "$cf" >/dev/null 2>&1; then
    echo "style: $cf not found (ci/deps installs clang-format)" >&2
    return 1
  fi
  cf_version=$("$cf" --version | sed -n 's/.*version \([0-9][0-9.]*\).*/\1/p')
  if [ "${cf_version%%.*}" != "$CLANG_FORMAT_MAJOR" ]; then
    echo "style: $cf is version ${cf_version:-unknown}; the style is" \
      "checked with clang-format $CLANG_FORMAT_MAJOR, whose output another" \
      "version does not reproduce (set CLANG_FORMAT to a clang-format" \
      "$CLANG_FORMAT_MAJOR)" >&2
    return 1
  fi
}

if [ "$mode" = fix ]; then
  pick_clang_format || exit 1
  echo "style: clang-format $cf_version rewriting $(c_files | wc -l) files"
  c_files | xargs "$cf" -i --style=file
  exit 0
elif [ "$mode" != check ]; then
  echo "usage: ci/style.sh [check|fix]" >&2
  exit 2
fi

if pick_clang_format; then
  # Only the file names go to the summary; clang-format's own report of
  # each difference comes first.
  bad=$(c_files | while read -r f; do
    "$cf" --dry-run -Werror --style=file "$f" >&2 || echo "$f"
  done)
  n=$(c_files | wc -l)
  if [ -n "$bad" ]; then
    echo "style: clang-format $cf_version: $(echo "$bad" | wc -l) of $n" \
      "files differ (make style rewrites them):" "$(echo "$bad" | tr '\n' ' ')"
    fail clang-format
  else
    echo "style: clang-format $cf_version: $n files formatted"
  fi
else
  fail clang-format
fi

if command -v shellcheck >/dev/null 2>&1; then
  sc_version=$(shellcheck --version | sed -n 's/^version: //p')
  scripts=$(shell_scripts | tr '\n' ' ')
  # shellcheck disable=SC2086 # one word per script (names have no spaces)
  if shellcheck $scripts; then
    echo "style: shellcheck $sc_version: $scripts"
  else
    fail shellcheck
  fi
else
  echo "style: shellcheck not found (ci/deps installs it)" >&2
  fail shellcheck
fi

if [ ! -x "$ACTIONLINT" ]; then
  if command -v go >/dev/null 2>&1; then
    echo "style: building actionlint $ACTIONLINT_VERSION into $ACTIONLINT_DIR"
    mkdir -p "$ACTIONLINT_DIR"
    GOBIN=$ACTIONLINT_DIR go install \
      "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" ||
      rm -f "$ACTIONLINT"
  else
    echo "style: actionlint needs go to be built" >&2
  fi
fi
if [ -x "$ACTIONLINT" ]; then
  # It also runs shellcheck on each step's script when shellcheck is here.
  if "$ACTIONLINT" -no-color .github/workflows/*.yml; then
    echo "style: actionlint $("$ACTIONLINT" -version | head -n 1):" \
      "$(echo .github/workflows/*.yml)"
  else
    fail actionlint
  fi
else
  fail actionlint
fi

if command -v cargo >/dev/null 2>&1 && [ -f lanes/rust/Cargo.toml ]; then
  if cargo fmt --version >/dev/null 2>&1; then
    if (cd lanes/rust && cargo fmt --check); then
      echo "style: $(cargo fmt --version): lanes/rust"
    else
      fail "cargo-fmt"
    fi
  else
    echo "style: skipped cargo fmt (rustfmt is not installed)"
  fi
  if cargo clippy --version >/dev/null 2>&1; then
    if (cd lanes/rust &&
      cargo clippy --offline --quiet --all-targets -- -D warnings); then
      echo "style: $(cargo clippy --version): lanes/rust"
    else
      fail clippy
    fi
  else
    echo "style: skipped cargo clippy (clippy is not installed)"
  fi
else
  echo "style: skipped lanes/rust (cargo is not installed)"
fi

if command -v node >/dev/null 2>&1 && [ -d lanes/node ]; then
  # Node's own parser: no package to fetch at check time.
  js=$(find lanes/node -name node_modules -prune -o -type f \
    \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' \) -print |
    LC_ALL=C sort)
  ok=1
  for f in $js; do
    node --check "$f" || ok=0
  done
  if [ "$ok" = 1 ]; then
    echo "style: node $(node --version) --check: $(echo "$js" | wc -l) files"
  else
    fail "node-check"
  fi
else
  echo "style: skipped lanes/node (node is not installed)"
fi

if command -v go >/dev/null 2>&1 && [ -f lanes/go/go.mod ]; then
  # gofmt outside the vendored module code, which is not ours to format.
  gofiles=$(find lanes/go -name vendor -prune -o -type f -name '*.go' -print |
    LC_ALL=C sort)
  # shellcheck disable=SC2086 # one word per file (names have no spaces)
  unformatted=$(gofmt -l $gofiles)
  if [ -n "$unformatted" ]; then
    echo "style: gofmt: files differ (gofmt -w rewrites them):" "$(echo "$unformatted" | tr '\n' ' ')"
    fail gofmt
  else
    echo "style: gofmt ($(go env GOVERSION)): $(echo "$gofiles" | wc -l) files"
  fi
  if sh lanes/go/go.sh vet; then
    echo "style: go vet: lanes/go"
  else
    fail "go-vet"
  fi
else
  echo "style: skipped lanes/go (go is not installed)"
fi

if [ -n "$failed" ]; then
  echo "style: failed:$failed" >&2
  exit 1
fi
echo "style: all checks passed"
