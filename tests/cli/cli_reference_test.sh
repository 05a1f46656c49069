#!/usr/bin/env bash
# docs/CLI.md agrees with `strata <command> --help` (issue 48): every command the binary has (found
# by walking the help's "Subcommands:" lists) has a section `## \`strata <command>\`` in CLI.md and
# none other does; every flag a command's help lists is in its section's flag table and every flag
# in the table is in the help. A flag added to one and not the other fails here.
# Usage: cli_reference_test.sh <strata binary> <CLI.md>
STRATA=$(realpath "$1")
REFERENCE=$(realpath "$2")
/usr/bin/python3 - "$STRATA" "$REFERENCE" <<'PY'
import re, subprocess, sys
strata, reference = sys.argv[1:3]

def help_text(command):
    return subprocess.run([strata, *command, "--help"], capture_output=True, text=True, check=True).stdout

def subcommands(text):
    found = re.search(r"\nSubcommands:\n(.*?)(?:\n\n|$)", text, re.S)
    return [line.split()[0] for line in found.group(1).splitlines() if line.strip()] if found else []

def help_flags(text):
    """Every long flag an option line of the help starts with (CLI11's and the hand-written lists')."""
    flags = set()
    for line in text.splitlines():
        found = re.match(r"^  (?:-\w,)?(--[\w-]+)", line)
        if found and found.group(1) != "--help": flags.add(found.group(1))
    return flags

commands = {}
def walk(command):
    text = help_text(command)
    if command: commands[" ".join(command)] = help_flags(text)
    for sub in subcommands(text): walk(command + [sub])
walk([])

sections, current = {}, None
for line in open(reference, encoding="utf-8"):
    heading = re.match(r"^## `strata ([^`]+)`\s*$", line)
    if heading:
        current = heading.group(1)
        sections[current] = set()
        continue
    if line.startswith("## "): current = None
    row = re.match(r"^\| `(?:-\w,)?(--[\w-]+)", line)
    if row and current is not None: sections[current].add(row.group(1))

problems = []
for command, flags in commands.items():
    if command not in sections:
        problems.append(f"strata {command}: no section in docs/CLI.md")
        continue
    for flag in sorted(flags - sections[command]): problems.append(f"strata {command}: {flag} is in --help, not in docs/CLI.md")
    for flag in sorted(sections[command] - flags): problems.append(f"strata {command}: {flag} is in docs/CLI.md, not in --help")
for command in sorted(set(sections) - set(commands)): problems.append(f"docs/CLI.md documents strata {command}, which does not exist")
for problem in problems: print("FAIL:", problem, file=sys.stderr)
print(f"{len(commands)} commands, {sum(len(f) for f in commands.values())} flags compared; {len(problems)} problems")
sys.exit(1 if problems else 0)
PY
