# SPDX-License-Identifier: MIT
"""Checks `tern-inspect info|topo|health --json` against the documented schema.

Usage: python3 check_inspect_json.py info FILE BACKEND INDEX [DMA CORES]
       python3 check_inspect_json.py topo FILE BACKEND DEVICES LINKS PORTS TOPOLOGY
       python3 check_inspect_json.py health FILE BACKEND DEVICES
       python3 check_inspect_json.py top FILE BACKEND DEVICES DMA CORES [BUSY]
       python3 check_inspect_json.py moved BEFORE AFTER ENGINE TYPE
PORTS: links each device must have ("-" not to check); TOPOLOGY: the
"topology" value wanted ("-" not to check); DMA and CORES: the device's
DMA engines and cores, whose tensor, vector and scalar engines follow;
BUSY: "device/type", a type whose engines must have been busy in some
frame (top --json's JSON lines, each frame's devices by engine type).
moved: between two `info --json` documents of one device, engine ENGINE,
of type TYPE, ended a job more and its busy time moved, and its type's. Prints what is wrong and exits
1, or exits 0.
"""
import json
import sys

from check_list_json import (CAPABILITIES, CLIENT_KEYS, check_header,
                             check_health, check_keys)

INFO_KEYS = {
    "index": int, "name": str, "node": str, "bus_id": str, "fabric_id": int,
    "driver_version": str, "capabilities": list, "engine_clock_hz": int,
    "memory_used_bytes": int, "memory_total_bytes": int,
    "memory_host_used_bytes": int, "buffers": int, "engines_busy": int,
    "jobs_completed": int, "jobs_failed": int, "job_timeouts": int,
    "engine_resets": int, "engine_hang_resets": int,
    "mem_errors_corrected": int,
    "mem_errors_uncorrected": int, "health": str, "health_reasons": list,
    "fabric_ports": int, "links_up": int, "engines": list, "links": list,
    "clients": list,
    # added in schema_version 1 when clients became each user's own
    "client_count": int, "clients_hidden": int,
    # added in schema_version 1 with chips of cores
    "engine_types": list,
}
ENGINE_KEYS = {
    "index": int, "busy": bool, "hung": bool, "busy_ns": int,
    "jobs_queued": int, "jobs_completed": int, "jobs_failed": int,
    "timeouts": int, "resets": int, "hang_resets": int,
    # added in schema_version 1 with chips of cores
    "type": str, "core": (int, type(None)),
}
ENGINE_TYPES = ["dma", "tensor", "vector", "scalar"]
ENGINE_TYPE_KEYS = {"type": str, "engines": int, "engines_busy": int,
                    "busy_ns": int}
INFO_LINK_KEYS = {
    "index": int, "port": int, "peer_device": int, "peer_port": int,
    "state": str, "bytes_out": int, "bytes_in": int, "errors": int,
}
TOPO_DEVICE_KEYS = {"index": int, "fabric_id": int, "ports": int,
                    "links_up": int}
TOPO_LINK_KEYS = {
    "index": int, "device_a": int, "port_a": int, "device_b": int,
    "port_b": int, "state": str, "bytes_a_to_b": int, "bytes_b_to_a": int,
    "packets_a_to_b": int, "packets_b_to_a": int, "errors": int,
    "bandwidth_bytes_per_second": int, "latency_ns": int,
}
HEALTH_DEVICE_KEYS = {
    "index": int, "health": str, "health_reasons": list,
    "mem_errors_corrected": int, "mem_errors_uncorrected": int,
    "job_timeouts": int, "engine_resets": int, "engine_hang_resets": int,
    "links_down": int,
    "link_errors": int,
}
HEALTH_LINK_KEYS = {
    "index": int, "device_a": int, "port_a": int, "device_b": int,
    "port_b": int, "state": str, "errors": int,
}


def check_list_of(what, items, keys):
    for i, item in enumerate(items):
        problem = check_keys(f"{what} {i}", item, keys)
        if problem:
            return problem
    return None


def engine_layout(dma, cores):
    """[(type, core)] of a chip's engines: DMA engines, then 3 per core."""
    return [("dma", None)] * dma + [(ENGINE_TYPES[1 + t], c)
                                    for c in range(cores) for t in range(3)]


def check_engines(engines, types, layout):
    """Each engine's type and core, and the sums by type, agree."""
    for e in engines:
        if e["type"] not in ENGINE_TYPES + ["unknown"]:
            return f"engine {e['index']}: type {e['type']!r}"
        if (e["core"] is None) != (e["type"] in ("dma", "unknown")):
            return f"engine {e['index']}: a {e['type']} engine of core {e['core']}"
    if layout is not None:
        got = [(e["type"], e["core"]) for e in engines]
        if got != layout:
            return f"engines are {got}, want {layout}"
    want = [{"type": t,
             "engines": sum(e["type"] == t for e in engines),
             "engines_busy": sum(e["type"] == t and e["busy"] for e in engines),
             "busy_ns": sum(e["busy_ns"] for e in engines if e["type"] == t)}
            for t in ENGINE_TYPES if any(e["type"] == t for e in engines)]
    if types != want:
        return f"engine_types {types}, want {want}"
    return None


def check_info(doc, backend, index, dma=None, cores=None):
    problem = check_header(doc, backend, {"device"})
    if problem:
        return problem
    dev = doc["device"]
    layout = None if dma is None else engine_layout(int(dma), int(cores))
    problem = (check_keys("device", dev, INFO_KEYS) or
               check_health("device", dev) or
               check_list_of("engine", dev["engines"], ENGINE_KEYS) or
               check_list_of("engine type", dev["engine_types"],
                             ENGINE_TYPE_KEYS) or
               check_engines(dev["engines"], dev["engine_types"], layout) or
               check_list_of("link", dev["links"], INFO_LINK_KEYS) or
               check_list_of("client", dev["clients"], CLIENT_KEYS))
    if problem:
        return problem
    if dev["index"] != int(index):
        return f"device index {dev['index']}, want {index}"
    if set(dev["capabilities"]) - CAPABILITIES:
        return f"unknown capabilities {dev['capabilities']}"
    if [e["index"] for e in dev["engines"]] != list(range(len(dev["engines"]))):
        return "engines are not numbered 0, 1, ..."
    if not dev["engines"]:
        return "no engines"
    if dev["links_up"] != sum(l["state"] == "up" for l in dev["links"]):
        return f"links_up {dev['links_up']} but links {dev['links']}"
    if any(l["state"] not in ("up", "down") for l in dev["links"]):
        return "a link state is neither up nor down"
    return None


def check_topo(doc, backend, devices, links, ports, topology):
    keys = {"topology", "driver_topology", "torus_rows", "torus_cols",
            "devices", "links"}
    problem = (check_header(doc, backend, keys) or
               check_list_of("device", doc["devices"], TOPO_DEVICE_KEYS) or
               check_list_of("link", doc["links"], TOPO_LINK_KEYS))
    if problem:
        return problem
    if len(doc["devices"]) != int(devices):
        return f"{len(doc['devices'])} devices, want {devices}"
    if len(doc["links"]) != int(links):
        return f"{len(doc['links'])} links, want {links}"
    if topology != "-" and doc["topology"] != topology:
        return f"topology {doc['topology']!r}, want {topology!r}"
    if doc["topology"].startswith("torus:"):
        rows, cols = map(int, doc["topology"][6:].split("x"))
        if (doc["torus_rows"], doc["torus_cols"]) != (rows, cols):
            return "torus_rows/torus_cols disagree with topology"
    indexes = {d["index"] for d in doc["devices"]}
    ends = {}
    for link in doc["links"]:
        if link["state"] not in ("up", "down"):
            return f"link {link['index']} state {link['state']!r}"
        for dev, port in ((link["device_a"], link["port_a"]),
                          (link["device_b"], link["port_b"])):
            if dev not in indexes:
                return f"link {link['index']} ends on unknown device {dev}"
            if (dev, port) in ends:
                return f"port {dev}/{port} is on two links"
            ends[(dev, port)] = link["index"]
    if ports != "-":
        for dev in indexes:
            n = sum(1 for (d, _) in ends if d == dev)
            if n != int(ports):
                return f"device {dev} has {n} links, want {ports}"
    return None


def check_health_doc(doc, backend, devices):
    keys = {"healthy", "summary", "devices", "links"}
    problem = (check_header(doc, backend, keys) or
               check_list_of("device", doc["devices"], HEALTH_DEVICE_KEYS) or
               check_list_of("link", doc["links"], HEALTH_LINK_KEYS))
    if problem:
        return problem
    for dev in doc["devices"]:
        problem = check_health(f"device {dev['index']}", dev)
        if problem:
            return problem
    if len(doc["devices"]) != int(devices):
        return f"{len(doc['devices'])} devices, want {devices}"
    summary = doc["summary"]
    counts = {h: sum(d["health"] == h for d in doc["devices"])
              for h in ("ok", "degraded", "failed")}
    if summary != dict(devices=int(devices), **counts):
        return f"summary {summary} disagrees with the devices {counts}"
    if doc["healthy"] != (counts["ok"] == int(devices)):
        return f"healthy is {doc['healthy']} with {counts}"
    return None


def check_top(lines, backend, devices, dma, cores, busy=None):
    """Each frame's devices have their engines by type, adding up."""
    counts = {"dma": int(dma), "tensor": int(cores), "vector": int(cores),
              "scalar": int(cores)}
    want = [t for t in ENGINE_TYPES if counts[t]]
    moved = False
    for n, frame in enumerate(lines):
        problem = check_header(frame, backend, {"time", "interval_ns",
                                                "totals", "devices",
                                                "clients"})
        if problem:
            return f"frame {n}: {problem}"
        if len(frame["devices"]) != int(devices):
            return f"frame {n}: {len(frame['devices'])} devices"
        for dev in frame["devices"]:
            what = f"frame {n} device {dev['index']}"
            problem = check_list_of(f"{what} engine type",
                                    dev["engine_types"],
                                    dict(ENGINE_TYPE_KEYS,
                                         utilisation_percent=int))
            if problem:
                return problem
            types = dev["engine_types"]
            if [t["type"] for t in types] != want:
                return f"{what}: engine types {types}, want {want}"
            for t in types:
                if t["engines"] != counts[t["type"]]:
                    return f"{what}: {t}, want {counts[t['type']]} engines"
                if not 0 <= t["utilisation_percent"] <= 100 or \
                        t["engines_busy"] > t["engines"]:
                    return f"{what}: {t}"
                if busy == f"{dev['index']}/{t['type']}" and t["busy_ns"] > 0:
                    moved = True
            if sum(t["busy_ns"] for t in types) > dev["busy_ns"]:
                return f"{what}: the types' busy time is more than the device's"
    if busy and not moved:
        return f"no frame has busy time for {busy}"
    return None


def check_moved(before, after, engine, kind):
    """@engine, of type @kind, ran a job between @before and @after."""
    engine = int(engine)
    was, now = (d["device"]["engines"][engine] for d in (before, after))
    if now["type"] != kind:
        return f"engine {engine} is a {now['type']} engine, want {kind}"
    if now["jobs_completed"] <= was["jobs_completed"]:
        return f"engine {engine} completed no job: {was} -> {now}"
    if now["busy_ns"] <= was["busy_ns"]:
        return f"engine {engine}'s busy time did not move: {was} -> {now}"
    was, now = ({t["type"]: t["busy_ns"] for t in d["device"]["engine_types"]}
                for d in (before, after))
    if now[kind] <= was[kind]:
        return f"the {kind} engines' busy time did not move: {was} -> {now}"
    return None


def main():
    command, path = sys.argv[1:3]
    try:
        with open(path, encoding="utf-8") as f:
            if command == "top":
                doc = [json.loads(line) for line in f.read().splitlines()]
            else:
                doc = json.load(f)
        if command == "moved":
            with open(sys.argv[3], encoding="utf-8") as f:
                sys.argv[3] = json.load(f)
    except ValueError as e:
        print(f"not JSON: {e}")
        return 1
    checks = {"info": check_info, "topo": check_topo,
              "health": check_health_doc, "top": check_top,
              "moved": check_moved}
    problem = checks[command](doc, *sys.argv[3:])
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
