# SPDX-License-Identifier: MIT
"""Checks `tern-inspect list --json` output against the documented schema.

Usage: python3 check_list_json.py FILE DEVICES MEM_BYTES BACKEND
Prints what is wrong and exits 1, or exits 0.
"""
import json
import sys

DEVICE_KEYS = {
    "index": int, "node": str, "memory_used_bytes": int,
    "memory_total_bytes": int, "engines": int, "fabric_ports": int,
    "engine_clock_hz": int, "capabilities": list,
}
CAPABILITIES = {"mock", "host_memory", "semaphore", "timestamp"}


def check(doc, devices, mem_bytes, backend):
    if set(doc) != {"schema_version", "backend", "backend_reason", "devices"}:
        return f"top-level keys are {sorted(doc)}"
    if doc["schema_version"] != 1:
        return f"schema_version is {doc['schema_version']!r}, want 1"
    if doc["backend"] != backend:
        return f"backend is {doc['backend']!r}, want {backend!r}"
    if not isinstance(doc["backend_reason"], str) or not doc["backend_reason"]:
        return "backend_reason is not a non-empty string"
    if len(doc["devices"]) != devices:
        return f"{len(doc['devices'])} devices, want {devices}"
    for i, dev in enumerate(doc["devices"]):
        if set(dev) != set(DEVICE_KEYS):
            return f"device {i} keys are {sorted(dev)}"
        for key, kind in DEVICE_KEYS.items():
            if type(dev[key]) is not kind:
                return f"device {i} {key} is {dev[key]!r}, want {kind.__name__}"
        if dev["index"] != i:
            return f"device {i} has index {dev['index']}"
        if dev["memory_total_bytes"] != mem_bytes:
            return f"device {i} memory_total_bytes {dev['memory_total_bytes']}, want {mem_bytes}"
        if not 0 <= dev["memory_used_bytes"] <= dev["memory_total_bytes"]:
            return f"device {i} memory_used_bytes {dev['memory_used_bytes']} out of range"
        if dev["engines"] < 1 or not dev["node"]:
            return f"device {i} has no engines or no node"
        unknown = set(dev["capabilities"]) - CAPABILITIES
        if unknown:
            return f"device {i} has unknown capabilities {sorted(unknown)}"
    return None


def main():
    path, devices, mem_bytes, backend = sys.argv[1:5]
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except ValueError as e:
        print(f"not JSON: {e}")
        return 1
    problem = check(doc, int(devices), int(mem_bytes), backend)
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
