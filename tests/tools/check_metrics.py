# SPDX-License-Identifier: MIT
"""Checks `tern-inspect metrics` output: the Prometheus text exposition
format (version 0.0.4) and the metric families the documentation names.

Usage: python3 check_metrics.py FILE DEVICES LINKS
Prints what is wrong and exits 1, or exits 0.
"""
import math
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*$")
TYPES = {"counter", "gauge", "histogram", "summary", "untyped"}

# family: (type, labels every sample has)
FAMILIES = {
    "tern_device_info": ("gauge", {"device", "node", "bus_id",
                                   "driver_version", "fabric_id"}),
    "tern_device_health": ("gauge", {"device"}),
    "tern_device_health_reason": ("gauge", {"device", "reason"}),
    "tern_memory_used_bytes": ("gauge", {"device"}),
    "tern_memory_total_bytes": ("gauge", {"device"}),
    "tern_memory_host_used_bytes": ("gauge", {"device"}),
    "tern_buffers": ("gauge", {"device"}),
    "tern_device_engines_active": ("gauge", {"device"}),
    "tern_clients": ("gauge", {"device"}),
    "tern_clients_hidden": ("gauge", {"device"}),
    "tern_job_timeouts_total": ("counter", {"device"}),
    "tern_engine_resets_total": ("counter", {"device"}),
    "tern_engine_hang_resets_total": ("counter", {"device"}),
    "tern_memory_errors_total": ("counter", {"device", "kind"}),
    "tern_engine_active": ("gauge", {"device", "engine", "type", "core"}),
    "tern_engine_busy_seconds_total": ("counter", {"device", "engine", "type",
                                                   "core"}),
    "tern_engine_jobs_queued": ("gauge", {"device", "engine", "type", "core"}),
    "tern_engine_jobs_total": ("counter", {"device", "engine", "type", "core",
                                           "result"}),
    "tern_device_engines": ("gauge", {"device", "type"}),
    "tern_device_engine_busy_seconds_total": ("counter", {"device", "type"}),
    "tern_link_up": ("gauge", {"link", "device_a", "port_a", "device_b",
                               "port_b"}),
    "tern_link_bytes_total": ("counter", {"link", "direction"}),
    "tern_link_errors_total": ("counter", {"link"}),
    "tern_port_tx_bytes_total": ("counter", {"device", "port", "peer_device",
                                             "peer_port"}),
    "tern_port_rx_bytes_total": ("counter", {"device", "port", "peer_device",
                                             "peer_port"}),
    "tern_client_memory_bytes": ("gauge", {"device", "pid", "client", "comm",
                                           "kind"}),
}


def parse_labels(text):
    """Parses 'a="x",b="y"' with the format's escapes; raises ValueError."""
    labels = {}
    i = 0
    while i < len(text):
        eq = text.index("=", i)
        name = text[i:eq]
        if not LABEL_NAME.match(name) or name in labels:
            raise ValueError(f"bad or repeated label name {name!r}")
        if text[eq + 1:eq + 2] != '"':
            raise ValueError(f"label {name} value not quoted")
        j = eq + 2
        value = []
        while text[j] != '"':
            if text[j] == "\\":
                escaped = text[j + 1]
                if escaped not in '\\"n':
                    raise ValueError(f"bad escape \\{escaped} in {name}")
                value.append("\n" if escaped == "n" else escaped)
                j += 2
            else:
                if text[j] == "\n":
                    raise ValueError("raw newline in a label value")
                value.append(text[j])
                j += 1
        labels[name] = "".join(value)
        i = j + 1
        if i < len(text):
            if text[i] != ",":
                raise ValueError(f"expected ',' after label {name}")
            i += 1
    return labels


def check(lines, devices, links):
    helped, typed, seen_samples = {}, {}, set()
    samples = {}
    done = set()
    current = None
    for n, line in enumerate(lines, 1):
        if not line:
            return f"line {n}: empty line"
        if line.startswith("#"):
            parts = line.split(" ", 3)
            if len(parts) < 4 or parts[1] not in ("HELP", "TYPE"):
                return f"line {n}: comment is not HELP or TYPE: {line!r}"
            name = parts[2]
            if not NAME.match(name):
                return f"line {n}: bad metric name {name!r}"
            if name in done:
                return f"line {n}: {name} appears in two groups"
            if current and current != name:
                done.add(current)
            current = name
            table = helped if parts[1] == "HELP" else typed
            if name in table:
                return f"line {n}: second {parts[1]} for {name}"
            if parts[1] == "TYPE" and parts[3] not in TYPES:
                return f"line {n}: unknown type {parts[3]!r}"
            if parts[1] == "TYPE" and name in samples:
                return f"line {n}: TYPE after samples of {name}"
            table[name] = parts[3]
            continue
        m = re.match(r"([^{ ]+)(?:\{(.*)\})? (\S+)$", line)
        if not m:
            return f"line {n}: not a sample: {line!r}"
        name, label_text, value = m.groups()
        if name != current:
            return f"line {n}: sample of {name} outside its group"
        if not name.startswith("tern_"):
            return f"line {n}: {name} lacks the tern_ prefix"
        try:
            labels = parse_labels(label_text or "")
            number = float(value)
        except (ValueError, IndexError) as e:
            return f"line {n}: {e}: {line!r}"
        if math.isnan(number) or number < 0:
            return f"line {n}: value {value}"
        key = (name, tuple(sorted(labels.items())))
        if key in seen_samples:
            return f"line {n}: duplicate sample {line!r}"
        seen_samples.add(key)
        samples.setdefault(name, []).append(labels)
    for name, (kind, labels) in FAMILIES.items():
        if typed.get(name) != kind or name not in helped:
            return f"{name}: TYPE {typed.get(name)!r} (want {kind}) or no HELP"
        if kind == "counter" and not name.endswith("_total"):
            return f"{name}: counter without _total"
        for sample in samples.get(name, []):
            if set(sample) != labels:
                return f"{name}: labels {sorted(sample)}, want {sorted(labels)}"
    for name in typed:
        if name not in FAMILIES:
            return f"{name}: not documented"
    info = samples.get("tern_device_info", [])
    if sorted(int(s["device"]) for s in info) != list(range(devices)):
        return f"tern_device_info has devices {[s['device'] for s in info]}"
    if len(samples.get("tern_link_up", [])) != links:
        return f"{len(samples.get('tern_link_up', []))} tern_link_up samples, want {links}"
    if len(samples.get("tern_link_bytes_total", [])) != 2 * links:
        return "tern_link_bytes_total: want two directions per link"
    for name in ("tern_port_tx_bytes_total", "tern_port_rx_bytes_total"):
        if len(samples.get(name, [])) != 2 * links:
            return f"{name}: want both ends of every link"
    reasons = {"link_down", "link_errors", "engine_reset", "engine_hung",
               "mem_uncorrected"}
    for sample in samples.get("tern_device_health_reason", []):
        if sample["reason"] not in reasons:
            return f"tern_device_health_reason: unknown reason {sample}"
    return None


def main():
    path, devices, links = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not text.endswith("\n"):
        print("the exposition does not end with a newline")
        return 1
    problem = check(text[:-1].split("\n"), devices, links)
    if problem:
        print(problem)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
