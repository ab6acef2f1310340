#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that libtern.so exports every function tern.h, tern_sim.h and
tern_compute.h declare, and nothing else: a call a header promises must link.

    check_exports.py BUILD_DIR
"""
import re
import subprocess
import sys
import os

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADERS = ["libruntime/tern.h", "libruntime/tern_sim.h",
           "libruntime/tern_compute.h"]


def declared():
    names = set()
    for header in HEADERS:
        with open(os.path.join(TOP, header), encoding="utf-8") as f:
            text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
        text = "\n".join(line for line in text.splitlines()
                         if not line.lstrip().startswith("#"))
        names |= set(re.findall(r"\b(tern_[a-z0-9_]+)\s*\(", text))
        # a static inline function is the header's own
        names -= set(re.findall(
            r"static\s+inline\b[^;{]*?\b(tern_[a-z0-9_]+)\s*\(", text))
    return names


def exported(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[-1].split("@")[0] for line in out.splitlines()
            if line.split() and line.split()[-2] in ("T", "W")}


def main():
    library = os.path.join(sys.argv[1] if len(sys.argv) > 1 else "build",
                           "libtern.so")
    want, have = declared(), exported(library)
    missing, extra = sorted(want - have), sorted(have - want)
    for name in missing:
        print(f"check_exports: {name} is declared in tern.h or tern_sim.h "
              f"but {library} does not export it")
    for name in extra:
        print(f"check_exports: {library} exports {name}, which no public "
              "header declares")
    if missing or extra:
        return 1
    print(f"check_exports: {library} exports the {len(want)} functions "
          "the headers declare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
