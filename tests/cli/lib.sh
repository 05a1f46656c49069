# Shared helpers of the CLI tests: run the real binary, capture stdout/stderr/exit code,
# and assert on them. Every failed assertion is counted; the script exits non-zero at the end.
set -u
failures=0
checks=0
WORK=$(mktemp -d /tmp/strata-cli-test.XXXXXX)
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT

# run <args...>: runs $STRATA, leaving $OUT, $ERR, $CODE.
run() {
  "$STRATA" "$@" >"$WORK/stdout" 2>"$WORK/stderr"
  CODE=$?
  OUT=$(cat "$WORK/stdout")
  ERR=$(cat "$WORK/stderr")
}

fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
  echo "  exit=$CODE" >&2
  echo "  stdout: $(head -c 400 "$WORK/stdout")" >&2
  echo "  stderr: $(head -c 400 "$WORK/stderr")" >&2
}

expect_code() { checks=$((checks + 1)); [ "$CODE" = "$1" ] || fail "$2: expected exit $1"; }
expect_out() { checks=$((checks + 1)); [ "$OUT" = "$1" ] || fail "$2: stdout differs (expected: $1)"; }
expect_out_has() { checks=$((checks + 1)); grep -qF -- "$1" "$WORK/stdout" || fail "$2: stdout lacks '$1'"; }
expect_err_has() { checks=$((checks + 1)); grep -qF -- "$1" "$WORK/stderr" || fail "$2: stderr lacks '$1'"; }
expect_out_empty() { checks=$((checks + 1)); [ -z "$OUT" ] || fail "$1: stdout not empty"; }
expect_err_empty() { checks=$((checks + 1)); [ -z "$ERR" ] || fail "$1: stderr not empty"; }
expect_err_lines() { checks=$((checks + 1)); [ "$(wc -l <"$WORK/stderr")" = "$1" ] || fail "$2: expected $1 stderr line(s)"; }
expect_file_absent() { checks=$((checks + 1)); [ ! -e "$1" ] || fail "$2: $1 was written"; }
expect_true() { checks=$((checks + 1)); eval "$1" || fail "$2"; }

# bad_input <name> <expected stderr fragment> <args...>: exit 2, one line on stderr, nothing on stdout.
bad_input() {
  local name=$1 fragment=$2
  shift 2
  run "$@"
  expect_code 2 "$name"
  expect_err_has "$fragment" "$name"
  expect_err_lines 1 "$name"
  expect_out_empty "$name"
}

finish() {
  echo "$((checks - failures)) passed, $failures failed"
  [ "$failures" -eq 0 ]
}
