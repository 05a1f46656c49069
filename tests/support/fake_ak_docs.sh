#!/usr/bin/env bash
# A fake doc-bridge CLI (`ak-docs query TYPE ID --agent`) for the agent-adapter tests: prints a
# handoff as pretty JSON, records its arguments and working directory in $FAKE_QUERY_RECORD when
# set; FAKE_QUERY=fail exits 4, FAKE_QUERY=text prints something that is not JSON.
if [ -n "${FAKE_QUERY_RECORD:-}" ]; then
  printf '%s\n' "$@" >"$FAKE_QUERY_RECORD/args"
  pwd >"$FAKE_QUERY_RECORD/cwd"
fi
case "${FAKE_QUERY:-ok}" in
  ok) printf '{\n  "startHere": ["src/main.cpp"],\n  "readBeforeEditing": ["docs/ARCHITECTURE.md"]\n}\n' ;;
  fail) echo "no such target" >&2; exit 4 ;;
  text) echo "startHere: src/main.cpp" ;;
esac
