#!/usr/bin/env python3
"""Checks that tests fail when the rules they hold are broken (not a test; run by hand).

Usage: python3 bench/mutate.py bench/mutations/anthropic.py
For each mutation in the file's list M (name, file, text, replacement, cargo test arguments):
replace the text (it must occur once), run the tests, put the file back, and print CAUGHT with
the failing tests, or SURVIVED when every test still passed. Exits 1 if any survived or did not
apply. Leaves the tree as it found it, also when interrupted.
"""

import runpy
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parent.parent


def main(spec):
    mutations = runpy.run_path(spec)["M"]
    bad = 0
    for name, file, old, new, tests in mutations:
        path = root / file
        original = path.read_text()
        if original.count(old) != 1:
            print(f"DOES NOT APPLY ({original.count(old)} matches): {name}")
            bad += 1
            continue
        try:
            path.write_text(original.replace(old, new))
            run = subprocess.run(f"cargo test -p tokctl-server {tests} 2>&1", shell=True, cwd=root,
                                 capture_output=True, text=True)
        finally:
            path.write_text(original)
        failed = [line.split()[1] for line in run.stdout.splitlines()
                  if line.startswith("test ") and line.rstrip().endswith("FAILED")]
        if "error: could not compile" in run.stdout:
            print(f"DOES NOT COMPILE: {name}")
            bad += 1
        elif failed:
            print(f"CAUGHT: {name}: {', '.join(failed)}")
        else:
            print(f"SURVIVED: {name}")
            bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(sys.argv[1])
