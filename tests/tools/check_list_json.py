# SPDX-License-Identifier: MIT
"""Checks `tern-inspect list --json` output against the documented schema.

Usage: python3 check_list_json.py FILE DEVICES MEM_BYTES BACKEND [verbose]
("verbose": the document of `list -v --json`, with each device's clients).
Prints what is wrong and exits 1, or exits 0. check_inspect_json.py uses
its helpers for the other commands.
"""
import json
import sys

DEVICE_KEYS = {
    # schema_version 1 as first published
    "index": int, "node": str, "memory_used_bytes": int,
    "memory_total_bytes": int, "engines": int, "fabric_ports": int,
    "engine_clock_hz": int, "capabilities": list,
    # added in schema_version 1 with health and the netlink snapshot
    "bus_id": str, "fabric_id": int, "engines_busy": int, "links_up": int,
    "links_total": int, "health": str, "health_reasons": list, "client_count": int,
    # added in schema_version 1 when clients became each user's own
    "clients_hidden": int,
}
CAPABILITIES = {"mock", "host_memory", "semaphore", "timestamp", "fabric",
                "reduce", "peer_memory", "sem_wait_abort",
                "reduce_divide", "user_ring"}
HEALTH = {"ok", "degraded", "failed"}
REASONS = {"link_down", "link_errors", "engine_reset", "engine_hung",
           "mem_uncorrected"}
CLIENT_KEYS = {
    "device": int, "id": int, "pid": int, "comm": str,
    "memory_device_bytes": int, "memory_host_bytes": int, "buffers": int,
    "queues": int, "jobs_submitted": int, "jobs_active": int, "busy_ns": int,
}


def check_keys(what, obj, keys):
    """None if @obj has exactly @keys, each of its type (or one of a tuple
    of types); else the problem."""
    if set(obj) != set(keys):
        missing = sorted(set(keys) - set(obj))
        extra = sorted(set(obj) - set(keys))
        return f"{what}: missing keys {missing}, unexpected keys {extra}"
    for key, kind in keys.items():
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if type(obj[key]) not in kinds:
            names = " or ".join(k.__name__ for k in kinds)
            return f"{what}: {key} is {obj[key]!r}, want {names}"
    return None


def check_header(doc, backend, keys):
    """The keys every tern-inspect document starts with."""
    want = {"schema_version", "backend", "backend_reason", "source"} | keys
    if set(doc) != want:
        return f"top-level keys are {sorted(doc)}, want {sorted(want)}"
    if doc["schema_version"] != 1:
        return f"schema_version is {doc['schema_version']!r}, want 1"
    if doc["backend"] != backend:
        return f"backend is {doc['backend']!r}, want {backend!r}"
    if not isinstance(doc["backend_reason"], str) or not doc["backend_reason"]:
        return "backend_reason is not a non-empty string"
    if doc["source"] not in ("driver", "sim"):
        return f"source is {doc['source']!r}"
    return None


def check_health(what, obj):
    if obj["health"] not in HEALTH:
        return f"{what}: health {obj['health']!r}"
    unknown = set(obj["health_reasons"]) - REASONS
    if unknown:
        return f"{what}: unknown health reasons {sorted(unknown)}"
    if (obj["health"] == "ok") != (not obj["health_reasons"]):
        return f"{what}: health {obj['health']} with reasons {obj['health_reasons']}"
    return None


def check(doc, devices, mem_bytes, backend, verbose=False):
    problem = check_header(doc, backend, {"devices"})
    if problem:
        return problem
    if len(doc["devices"]) != devices:
        return f"{len(doc['devices'])} devices, want {devices}"
    keys = dict(DEVICE_KEYS, clients=list) if verbose else DEVICE_KEYS
    for i, dev in enumerate(doc["devices"]):
        problem = (check_keys(f"device {i}", dev, keys) or
                   check_health(f"device {i}", dev))
        if problem:
            return problem
        if verbose:
            for client in dev["clients"]:
                problem = check_keys(f"device {i} client", client, CLIENT_KEYS)
                if problem:
                    return problem
                if client["device"] != i:
                    return f"device {i} lists a client of device {client['device']}"
        if not 0 <= dev["links_up"] <= dev["links_total"]:
            return f"device {i}: links_up {dev['links_up']} of {dev['links_total']}"
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
    verbose = sys.argv[5:6] == ["verbose"]
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except ValueError as e:
        print(f"not JSON: {e}")
        return 1
    problem = check(doc, int(devices), int(mem_bytes), backend, verbose)
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
