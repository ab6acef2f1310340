#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks udev rules files the way udev parses them (udev(7)), for systems
whose udevadm has no "verify" (systemd before 254, such as Debian 12's):
every line is comma-separated KEY[{attr}]OP"value" pairs, keys are known,
match keys take == or !=, assignment keys =, +=, -= or :=, and a rule
both matches and assigns. Prints one line per problem and exits
1 if there was any.

Usage: udev_lint.py FILE...
"""
import re
import sys

MATCH_KEYS = {
    "ACTION", "DEVPATH", "KERNEL", "NAME", "SYMLINK", "SUBSYSTEM", "DRIVER",
    "ATTR", "SYSCTL", "KERNELS", "SUBSYSTEMS", "DRIVERS", "ATTRS", "TAGS",
    "ENV", "CONST", "TAG", "TEST", "PROGRAM", "RESULT",
}
ASSIGN_KEYS = {
    "NAME", "SYMLINK", "OWNER", "GROUP", "MODE", "SECLABEL", "ATTR",
    "SYSCTL", "ENV", "TAG", "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS",
}
ATTR_KEYS = {"ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "TEST", "RUN",
             "IMPORT", "SECLABEL"}
ATTR_OPTIONAL = {"TEST", "RUN"}
PAIR = re.compile(r'\s*([A-Z]+)(\{[^}]+\})?\s*(==|!=|\+=|-=|:=|=)\s*'
                  r'"((?:[^"\\]|\\.)*)"\s*(,|$)')


def check_rule(line):
    problems, pos, matches, assigns = [], 0, 0, 0
    while pos < len(line):
        pair = PAIR.match(line, pos)
        if not pair:
            return problems + [f"cannot parse from column {pos + 1}: "
                               f"{line[pos:pos + 30]!r}"]
        key, attr, op, value, sep = pair.groups()
        is_match = op in ("==", "!=")
        if key not in MATCH_KEYS | ASSIGN_KEYS:
            problems.append(f"unknown key {key}")
        elif is_match and key not in MATCH_KEYS:
            problems.append(f"{key} cannot be matched ({op})")
        elif not is_match and key not in ASSIGN_KEYS:
            problems.append(f"{key} takes == or !=, not {op}")
        if attr and key not in ATTR_KEYS:
            problems.append(f"{key} takes no {{attribute}}")
        if key in ATTR_KEYS - ATTR_OPTIONAL and not attr:
            problems.append(f"{key} needs an {{attribute}}")
        if key == "MODE" and not re.fullmatch(r"0?[0-7]{3}", value):
            problems.append(f"MODE {value!r} is not an octal mode")
        matches += is_match
        assigns += not is_match
        pos = pair.end()
        if sep == "" and pos < len(line):
            return problems + [f"missing ',' at column {pos + 1}"]
    if assigns == 0:
        problems.append("the rule assigns nothing")
    elif matches == 0:
        problems.append("the rule matches nothing: it applies to every device")
    return problems


def main(paths):
    failed = False
    for path in paths:
        with open(path, encoding="utf-8") as rules:
            text, first = "", 0
            for number, line in enumerate(rules, 1):
                line = line.rstrip("\n")
                if not text and (not line.strip() or
                                 line.lstrip().startswith("#")):
                    continue
                first = first or number
                if line.endswith("\\"):	# continued on the next line
                    text += line[:-1]
                    continue
                for problem in check_rule((text + line).strip()):
                    print(f"{path}:{first}: {problem}")
                    failed = True
                text, first = "", 0
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: udev_lint.py FILE...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
