#!/usr/bin/env bash
# Every source file of every target of the default build (the libraries, the programs, the tests
# and their support) compiles on its own: each includes and declares what it uses. The scripts
# build with unity batches (scripts/build.sh), where a file that forgets an include can lean on a
# neighbour's; a packager, an IDE or a plain `cmake --build` builds without them (issues 28 and
# 35, part 0). This parses each file alone (g++ -fsyntax-only, the flags of a plain non-unity
# configure), two at a time, and prints every file that does not compile. It proves what a plain
# build would, for a parse instead of a full optimised compile of every file (docs/TESTING.md);
# the test command runs it in the lane with slack.
# Usage: scripts/check-includes.sh [build-dir=build-includes] [path-filter]
#   path-filter: only the sources whose path contains it (e.g. /tests/)
#   STRATA_INCLUDES_PROVEN_BY=<unity build tree>: skip the sources that tree's unity batches start
#     with. A CMake unity source is only `#include "<source>"` lines: the first source of a batch
#     sees nothing before it, so that tree's build compiled it exactly as a plain build would (the
#     test command passes the release tree once it has built; it proves about one file in six).
#
# Only what changed is parsed again. .ci/includes-verified names a commit at which every file was
# proven (a green run of the test command; the session that saw it records it there). A file whose
# own text and every project header it includes, directly or not, are as they were at that commit
# compiles on its own as it did then (the compiler, its flags and the system headers being the
# same): it is not parsed again. When a CMake file changed since, that commit's tree is configured
# too (a few seconds) and a file whose compile command changed (flags, definitions, include
# directories) is parsed again; adding a source or a target changes no other file's command.
# Every file is, when that commit is missing or not an ancestor of HEAD, or with
# STRATA_INCLUDES_FULL=1.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-includes}
filter=${2:-/}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# The project files changed since the verified commit, one a line; "ALL" when every file is to be
# parsed.
changed_since_verified() {
  local base
  base=$(tr -d '[:space:]' <.ci/includes-verified 2>/dev/null || true)
  if [ "${STRATA_INCLUDES_FULL:-}" = 1 ] || [ -z "$base" ] || ! git rev-parse -q --verify "$base^{commit}" >/dev/null 2>&1 ||
    ! git merge-base --is-ancestor "$base" HEAD 2>/dev/null; then
    echo ALL
    return
  fi
  { git diff --name-only "$base" --; git ls-files --others --exclude-standard; } | sort -u
}
changed_since_verified >"$dir/changed-files"
# A CMake file changed: the verified commit's tree, configured the same way, for its compile commands.
base_root= base_build=
if grep -q -e '\(^\|/\)CMakeLists.txt$' -e '\.cmake$' "$dir/changed-files" && ! grep -qx ALL "$dir/changed-files"; then
  base_root=$(realpath "$dir")/verified-tree base_build=$(realpath "$dir")/verified-build
  rm -rf "$base_root" "$base_build"
  mkdir -p "$base_root"
  git archive "$(tr -d '[:space:]' <.ci/includes-verified)" | tar -x -C "$base_root"
  cmake -S "$base_root" -B "$base_build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
fi
python3 - "$dir/compile_commands.json" "$PWD" "$filter" "${STRATA_INCLUDES_PROVEN_BY:-}" "$dir/changed-files" "$base_root" "$base_build" "$(realpath "$dir")" >"$dir/syntax-commands" <<'PY'
import glob, json, os, re, shlex, sys
root = os.path.realpath(sys.argv[2])
changed = open(sys.argv[5]).read().split()
base_root, base_build, build = sys.argv[6], sys.argv[7], sys.argv[8]
everything = changed == ["ALL"]
def flags(entry, tree, build_dir):
    """A compile command as this tree would have it: its words, the paths made this tree's."""
    text = entry["command"]
    if tree:
        text = text.replace(build_dir, build).replace(tree, root)
    return [w for w in shlex.split(text) if not w.startswith(("-o", "-MF", "-MT"))]
base_commands = {}
if base_root:
    for entry in json.load(open(os.path.join(base_build, "compile_commands.json"))):
        # A file of two targets has two commands.
        base_commands.setdefault(entry["file"].replace(base_root, root), set()).add(tuple(flags(entry, base_root, base_build)))
changed = {os.path.realpath(os.path.join(root, f)) for f in changed}
include_line = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
closures = {}
def closure(path, include_dirs):
    """The project files `path` includes, directly or not (system headers left out: they do not change)."""
    if path in closures: return closures[path]
    closures[path] = found = set()
    try: text = open(path, errors="replace").read()
    except OSError: return found
    for name in include_line.findall(text):
        for base in [os.path.dirname(path), *include_dirs]:
            candidate = os.path.realpath(os.path.join(base, name))
            if candidate.startswith(root + "/") and os.path.isfile(candidate):
                found.add(candidate)
                found |= closure(candidate, include_dirs)
                break
    return found
def depends_on_change(source, words, entry):
    if everything: return True
    if base_root and tuple(flags(entry, "", "")) not in base_commands.get(source, set()): return True  # its command changed
    include_dirs = [w[2:] for w in words if w.startswith("-I") and len(w) > 2]
    include_dirs += [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-I", "-isystem")]
    include_dirs = [os.path.realpath(d) for d in include_dirs if os.path.realpath(d).startswith(root + "/")]
    return os.path.realpath(source) in changed or bool(closure(os.path.realpath(source), include_dirs) & changed)
unchanged = 0
proven = set()
if sys.argv[4]:
    for unity in glob.glob(os.path.join(sys.argv[4], "**", "Unity", "unity_*.cxx"), recursive=True):
        first = re.search(r'^#include "([^"]+)"', open(unity).read(), re.M)
        if first: proven.add(os.path.realpath(first.group(1)))
    print(f"# {len(proven)} sources proven by the unity batches of {sys.argv[4]}", file=sys.stderr)
for entry in json.load(open(sys.argv[1])):
    source = entry["file"]
    if not source.startswith(sys.argv[2] + "/") or sys.argv[3] not in source:
        continue  # CMake's own sources (the precompiled header) are not ours
    if os.path.realpath(source) in proven:
        continue
    if not depends_on_change(source, shlex.split(entry["command"]), entry):
        unchanged += 1
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
if unchanged: print(f"# {unchanged} sources unchanged, with what they include, since the commit in .ci/includes-verified: proven there", file=sys.stderr)
PY
total=$(wc -l <"$dir/syntax-commands")
failed=$(xargs -P "$(nproc)" -d '\n' -I{} bash -c '{} >/dev/null 2>&1 || echo "{}"' <"$dir/syntax-commands" |
  grep -o '[^ ]*\.cpp$' || true)
if [ -n "$failed" ]; then
  echo "check-includes: these files do not compile on their own (build one with: cmake --build $dir --target <its library>):" >&2
  printf '  %s\n' $failed >&2
  exit 1
fi
echo "check-includes: all $total source files compile on their own"
