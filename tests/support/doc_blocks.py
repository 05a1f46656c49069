#!/usr/bin/python3
"""The shell blocks a document marks as tested, as one script (docs are tested as written).

Usage: doc_blocks.py <markdown file> <marker> <out.sh>

Every ```sh block that follows <marker> (an HTML comment such as <!-- guide-test -->) is joined,
in order, into <out.sh> after `set -e`: one shell session, as a person pastes the blocks one after
another. Prints how many blocks there were.
"""
import re
import sys

source, marker, out = sys.argv[1:4]
blocks = re.findall(re.escape(marker) + r"\s*```sh\n(.*?)```", open(source, encoding="utf-8").read(), re.S)
with open(out, "w") as script:
    script.write("set -e\n" + "".join(blocks))
print(len(blocks))
