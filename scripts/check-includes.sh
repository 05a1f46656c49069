#!/usr/bin/env bash
# Every library source file compiles on its own: each includes what it uses. The scripts build
# with unity batches (scripts/build.sh), where a file that forgets an include can lean on a
# neighbour's; a packager or an IDE builds without them (issue 28, part 0). This parses each file
# of the libraries alone (g++ -fsyntax-only, the flags of a plain non-unity configure), two at a
# time, and prints every file that does not compile.
# Usage: scripts/check-includes.sh [build-dir=build-includes]
#   Not in the test command: it costs about 5 CPU-seconds a file (docs/TESTING.md).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-includes}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
python3 - "$dir/compile_commands.json" >"$dir/syntax-commands" <<'PY'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    source = entry["file"]
    if "/src/" not in source or "/src/cli/" in source:  # the libraries (src/cli is the program)
        continue
    words, skip, command = shlex.split(entry["command"]), False, []
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-MF", "-MT"):
            skip = True
        elif word not in ("-c", "-MD"):
            command.append(word)
    command.insert(1, "-fsyntax-only")
    print(f"cd {shlex.quote(entry['directory'])} && {shlex.join(command)}")
PY
total=$(wc -l <"$dir/syntax-commands")
failed=$(xargs -P "$(nproc)" -d '\n' -I{} bash -c '{} >/dev/null 2>&1 || echo "{}"' <"$dir/syntax-commands" |
  grep -o '[^ ]*/src/[^ ]*\.cpp' || true)
if [ -n "$failed" ]; then
  echo "check-includes: these files do not compile on their own (build one with: cmake --build $dir --target <its library>):" >&2
  printf '  %s\n' $failed >&2
  exit 1
fi
echo "check-includes: all $total library source files compile on their own"
