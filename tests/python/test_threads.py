# SPDX-License-Identifier: MIT
"""The module's objects from several threads: an object ended (a device
closed, a stream or communicator destroyed) while another thread's call
uses it makes that call return or raise tern.Error, never crash
(close_worker.py, a process each, so that a crash fails the test); and
threads that share a communicator get exact results."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tern

WORKER = os.path.join(os.path.dirname(__file__), "close_worker.py")


def close_while(call, cycles):
    proc = subprocess.run([sys.executable, WORKER, call, str(cycles)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, \
        f"{call}: exit {proc.returncode}\n{proc.stdout}{proc.stderr[-3000:]}"
    words = proc.stdout.split()
    assert words[:2] == ["cycles", str(cycles)], proc.stdout
    assert int(words[3]) + int(words[5]) == 4 * cycles, proc.stdout


def test_close_while_synchronize():
    close_while("synchronize", 1000)


@pytest.mark.parametrize("call", ["event", "alloc", "collective",
                                  "stream-destroy", "comm-destroy"])
def test_end_while_in_use(call):
    close_while(call, 300)


THREADS, ITERATIONS, COUNT = 8, 200, 256


def test_threads_share_a_communicator():
    """8 threads all-reduce on one communicator of 4 ranks, each thread
    its own values, every rank in a group: every result is exact."""
    devs = [tern.Device(i) for i in range(4)]
    comms = tern.init_all(devs)
    start = threading.Barrier(THREADS)
    wrong, errors = [], []

    def issue(t):
        streams = [d.stream() for d in devs]
        send = [d.alloc(4 * COUNT) for d in devs]
        recv = [[d.alloc(4 * COUNT) for d in devs] for _ in range(ITERATIONS)]
        for r in range(4):
            np.frombuffer(send[r], dtype=np.int32)[:] = t * 16 + r
        start.wait()
        try:
            for i in range(ITERATIONS):
                tern.group_start()
                for r, c in enumerate(comms):
                    c.all_reduce(send[r], recv[i][r], COUNT, "int32", "sum",
                                 streams[r])
                tern.group_end()
            for s in streams:
                s.synchronize()
        except tern.Error as e:
            errors.append(e)
            return
        want = sum(t * 16 + r for r in range(4))
        for i in range(ITERATIONS):
            for r in range(4):
                got = np.frombuffer(recv[i][r], dtype=np.int32)
                if not (got == want).all():
                    wrong.append((t, i, r))

    threads = [threading.Thread(target=issue, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in comms:
        c.destroy()
    for d in devs:
        d.close()
    assert not errors, errors[:3]
    assert not wrong, f"{len(wrong)} of {THREADS * ITERATIONS * 4} wrong"


def test_group_keeps_its_streams():
    """libtern launches a group on its streams as they were at each
    call: destroying one before group_end is refused, after is fine."""
    devs = [tern.Device(i) for i in range(2)]
    comms = tern.init_all(devs)
    bufs = [(d.alloc(64), d.stream()) for d in devs]
    tern.group_start()
    for c, (b, s) in zip(comms, bufs):
        c.all_reduce(b, b, 16, "float32", "sum", s)
    with pytest.raises(tern.Error) as e:
        bufs[0][1].destroy()
    assert "group_end" in str(e.value)
    with pytest.raises(tern.Error) as e:
        comms[0].split(0, 0)
    assert "group_start() and group_end()" in str(e.value)
    tern.group_end()
    for b, s in bufs:
        s.synchronize()
        s.destroy()
    for c in comms:
        c.destroy()
    for d in devs:
        d.close()
