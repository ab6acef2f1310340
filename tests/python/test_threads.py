# SPDX-License-Identifier: MIT
"""The module's objects from several threads: an object ended (a device
closed, a stream or communicator destroyed) while another thread's call
uses it makes that call return or raise tern.Error, never crash
(close_worker.py, a process each, so that a crash fails the test)."""
import os
import subprocess
import sys

import pytest

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
