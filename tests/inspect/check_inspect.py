#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tern-inspect's --json output for tests/inspect/vm-inspect.sh.

    check_inspect.py list FILE DEVICES MEM_BYTES
    check_inspect.py torus FILE ROWS COLS
    check_inspect.py link-bytes FILE          (prints the bytes of all links)
    check_inspect.py top FILE FRAMES DEVICES PID DEVICE MIN_BYTES
    check_inspect.py health FILE DEVICE HEALTH REASON_FIELD VALUE
    check_inspect.py link-event FILE STATE DEVICE PORT
    check_inspect.py device-event FILE KIND DEVICE FIELD VALUE
    check_inspect.py guilty FILE DEVICE PID   (engine_reset: a client id, PID)
    check_inspect.py clients FILE DEVICE HIDDEN PIDS  (list -v --json; PIDS
                                 the pids listed, comma-separated, or -)

Exits 0 when the document is as expected, else prints why and exits 1.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f.read().splitlines()]


def check_list(path, devices, mem_bytes):
    doc = load(path)
    assert doc["schema_version"] == 1, doc["schema_version"]
    assert doc["backend"] == "kernel", doc["backend"]
    devs = doc["devices"]
    assert [d["index"] for d in devs] == list(range(devices)), \
        [d["index"] for d in devs]
    for d in devs:
        assert d["node"].startswith(("/dev/accel/accel", "/dev/dri/renderD")), d
        assert d["memory_total_bytes"] == mem_bytes, d
        assert d["health"] == "ok", d
        assert d["links_up"] == d["links_total"] == 4, d
        assert d["engines"] >= 1 and "bus_id" in d and "fabric_id" in d, d


def check_torus(path, rows, cols):
    doc = load(path)
    assert doc["torus_rows"] == rows and doc["torus_cols"] == cols, \
        (doc["torus_rows"], doc["torus_cols"])
    assert doc["topology"] == "torus:%dx%d" % (rows, cols), doc["topology"]
    links = doc["links"]
    assert len(links) == 2 * rows * cols, len(links)
    neighbours = {i: set() for i in range(rows * cols)}
    for link in links:
        assert link["state"] == "up", link
        a, b = link["device_a"], link["device_b"]
        neighbours[a].add(b)
        neighbours[b].add(a)
    for i in range(rows * cols):
        r, c = divmod(i, cols)
        want = {((r + 1) % rows) * cols + c, ((r - 1) % rows) * cols + c,
                r * cols + (c + 1) % cols, r * cols + (c - 1) % cols}
        assert neighbours[i] == want, (i, sorted(neighbours[i]), sorted(want))


def link_bytes(path):
    print(sum(l["bytes_a_to_b"] + l["bytes_b_to_a"] for l in load(path)["links"]))


def check_top(path, frames, devices, pid, device, min_bytes):
    got = lines(path)
    assert len(got) == frames, len(got)
    for frame in got:
        assert frame["schema_version"] == 1 and frame["interval_ns"] > 0
        assert [d["index"] for d in frame["devices"]] == list(range(devices))
        for d in frame["devices"]:
            assert 0 <= d["utilisation_percent"] <= 100, d
        mine = [c for c in frame["clients"] if c["pid"] == pid]
        assert mine, ("no client with pid", pid, frame["clients"])
        assert any(c["device"] == device and
                   c["memory_device_bytes"] >= min_bytes for c in mine), mine
        assert frame["totals"]["devices"] == devices


def check_health(path, device, health, field, value):
    doc = load(path)
    dev = [d for d in doc["devices"] if d["index"] == device]
    assert dev, "no device %d" % device
    dev = dev[0]
    assert dev["health"] == health, dev
    assert str(dev[field]) == value, (field, dev)
    if health != "ok":
        assert doc["healthy"] is False, doc["healthy"]


def check_link_event(path, state, device, port):
    events = [e for e in lines(path) if e["kind"] == "link_state"]
    assert events, "no link_state event"
    e = events[0]
    assert e["state"] == state, e
    assert (e["device_a"], e["port_a"]) == (device, port) or \
        (e["device_b"], e["port_b"]) == (device, port), e
    assert e["time"].endswith("Z") and "link" in e, e


def check_device_event(path, kind, device, field, value):
    events = [e for e in lines(path) if e["kind"] == kind]
    assert events, "no %s event in %s" % (kind, [e["kind"] for e in lines(path)])
    e = events[0]
    assert e["device"] == device, e
    assert str(e[field]) == value, (field, e)


def check_guilty(path, device, pid):
    events = [e for e in lines(path) if e["kind"] == "engine_reset"]
    assert events, "no engine_reset event"
    e = events[0]
    assert e["device"] == device, e
    assert e["guilty_client_id"] > 0 and e["guilty_pid"] == pid, e


def check_clients(path, device, hidden, pids):
    doc = load(path)
    dev = [d for d in doc["devices"] if d["index"] == device]
    assert dev, "no device %d" % device
    dev = dev[0]
    want = [] if pids == "-" else sorted(int(p) for p in str(pids).split(","))
    assert sorted(c["pid"] for c in dev["clients"]) == want, (want, dev["clients"])
    assert dev["clients_hidden"] == hidden, dev
    assert dev["client_count"] == len(want) + hidden, dev


def main():
    name, args = sys.argv[1], sys.argv[2:]
    ints = lambda v: [int(a) if a.isdigit() else a for a in v]
    try:
        {
            "list": lambda a: check_list(a[0], *ints(a[1:])),
            "torus": lambda a: check_torus(a[0], *ints(a[1:])),
            "link-bytes": lambda a: link_bytes(a[0]),
            "top": lambda a: check_top(a[0], *ints(a[1:])),
            "health": lambda a: check_health(a[0], int(a[1]), a[2], a[3], a[4]),
            "link-event": lambda a: check_link_event(a[0], a[1], int(a[2]), int(a[3])),
            "device-event": lambda a: check_device_event(a[0], a[1], int(a[2]), a[3], a[4]),
            "clients": lambda a: check_clients(a[0], int(a[1]), int(a[2]), a[3]),
            "guilty": lambda a: check_guilty(a[0], int(a[1]), int(a[2])),
        }[name](args)
    except (AssertionError, KeyError, ValueError, IndexError) as err:
        print("check_inspect %s: %r" % (name, err))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
