#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Holds Documentation/netlink/tern.yaml to the device-state lists of
model/tern_state.h, as tests/netlink/schema_dump prints them.

Usage: check_yaml.py SCHEMA_DUMP [YAML]
Every value the lists send is an attribute of its set in the spec, with the
same type and number, and in the reply of the set's dump (or the link
events'); every u32 or u64 attribute of the spec is in the lists, but for
the few only events carry. Prints what differs and exits 1, or exits 0.
"""
import subprocess
import sys

import yaml

# Attributes that describe an event, not a state: no list has them.
EVENT_ONLY = {
    "device": {"mem-error-kind", "mem-error-addr"},
    "engine": {"guilty-pid", "guilty-client-id"},
}
# The dump whose reply carries each set (the engine set is nested in the
# device's, which names the nest).
DUMPS = {"device": "device-get", "link": "link-get", "client": "client-get"}


def spec_sets(spec):
    """{set: {attribute: (type, number)}} with the numbers the spec gives."""
    sets = {}
    for aset in spec["attribute-sets"]:
        number, attrs = 0, {}
        for attr in aset["attributes"]:
            number = attr.get("value", number + 1)
            attrs[attr["name"]] = (attr["type"], number)
        sets[aset["name"]] = attrs
    return sets


def dump_replies(spec):
    replies = {}
    for op in spec["operations"]["list"]:
        if "dump" in op:
            replies[op["name"]] = set(op["dump"]["reply"]["attributes"])
    return replies


def check(lines, spec):
    errors = []
    sets = spec_sets(spec)
    replies = dump_replies(spec)
    listed = {}
    for line in lines:
        set_name, attr, kind, number = line.split()
        listed.setdefault(set_name, set()).add(attr)
        have = sets.get(set_name, {}).get(attr)
        if have is None:
            errors.append(f"{set_name} {attr}: in the lists, not in the spec")
            continue
        if have != (kind, int(number)):
            errors.append(f"{set_name} {attr}: the lists say {kind} {number}, "
                          f"the spec {have[0]} {have[1]}")
        dump = DUMPS.get(set_name)
        if dump and attr not in replies.get(dump, set()):
            errors.append(f"{set_name} {attr}: not in {dump}'s reply")
    for set_name, attrs in sets.items():
        if set_name not in listed:
            continue
        for attr, (kind, _) in attrs.items():
            if kind in ("u32", "u64") and attr not in listed[set_name] and \
                    attr not in EVENT_ONLY.get(set_name, ()):
                errors.append(f"{set_name} {attr}: a {kind} of the spec no "
                              "list has (model/tern_state.h)")
    for set_name in ("device", "engine", "link", "client"):
        if set_name not in listed:
            errors.append(f"{set_name}: no list printed it")
    return errors


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    path = sys.argv[2] if len(sys.argv) == 3 else "Documentation/netlink/tern.yaml"
    with open(path, encoding="utf-8") as f:
        spec = yaml.safe_load(f)
    out = subprocess.run([sys.argv[1]], check=True, capture_output=True,
                         text=True).stdout
    errors = check(out.splitlines(), spec)
    for error in errors:
        print(f"check_yaml: {error}")
    if errors:
        sys.exit(1)
    print(f"check_yaml: {path} matches the lists ({len(out.splitlines())} attributes)")


if __name__ == "__main__":
    main()
