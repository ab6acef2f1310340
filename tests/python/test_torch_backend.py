# SPDX-License-Identifier: MIT
"""torch.distributed's backend "tern", a process a rank as a launcher
starts them (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT): every
collective against gloo's answer (torch_worker.py), a rank killed
mid-all-reduce, and the group's timeout in init and in collectives."""
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

WORKER = os.path.join(os.path.dirname(__file__), "torch_worker.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(world, mode, ranks=None, **extra):
    port = free_port()
    procs = []
    for r in range(world) if ranks is None else ranks:
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r),
                   WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), TERN_SIM_DEVICES="8",
                   GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1", **extra)
        procs.append(subprocess.Popen([sys.executable, WORKER, mode],
                                      env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return procs


@pytest.mark.parametrize("world", range(1, 9))
def test_every_collective_against_gloo(world):
    procs = launch(world, "matrix")
    outs = [p.communicate(timeout=600)[0] for p in procs]
    for r, (p, out) in enumerate(zip(procs, outs)):
        assert p.returncode == 0 and out.rstrip().endswith("ok"), \
            f"rank {r} of {world} (exit {p.returncode}):\n{out[-3000:]}"


def test_file_and_tcp_stores(tmp_path):
    procs = launch(3, "stores", TEST_FILE_STORE=str(tmp_path / "store"),
                   TEST_TCP_STORE_PORT=str(free_port()))
    for r, p in enumerate(procs):
        out = p.communicate(timeout=300)[0]
        assert p.returncode == 0 and out.rstrip().endswith("ok"), \
            f"rank {r}:\n{out[-3000:]}"


def test_rank_killed_mid_all_reduce():
    """The survivors raise, well before the group's 60 s timeout."""
    procs = launch(3, "killed")
    for p in procs:
        line = p.stdout.readline()
        assert line.strip() == "ready", line
    time.sleep(0.5)
    procs[2].send_signal(signal.SIGKILL)
    start = time.monotonic()
    for r, p in enumerate(procs[:2]):
        out = p.communicate(timeout=120)[0]
        assert p.returncode == 0, f"rank {r}:\n{out}"
        assert "raised after" in out, out
    assert time.monotonic() - start < 30
    procs[2].wait()


def test_timeout_aborts_instead_of_hanging():
    """A rank that never comes: the others' wait raises at the group's
    timeout (3 s), the job timeout (a minute) being no help."""
    procs = launch(2, "timeout", TERN_SIM_JOB_TIMEOUT_MS="60000")
    out = procs[0].communicate(timeout=120)[0]
    assert procs[0].returncode == 0, out
    assert "raised after" in out and "CANCELLED" in out, out
    procs[1].kill()
    procs[1].wait(timeout=60)


def test_init_honours_the_group_timeout(tmp_path):
    """Rank 1 of 2 never comes: rank 0's init_process_group(timeout=5 s)
    raises near its timeout, not at libtern's default (30 s)."""
    proc = launch(2, "missing", ranks=[0],
                  TEST_FILE_STORE=str(tmp_path / "store"))[0]
    out = proc.communicate(timeout=120)[0]
    assert proc.returncode == 0 and out.rstrip().endswith("ok"), out
    took = float(re.search(r"raised after ([0-9.]+) s", out).group(1))
    assert took < 20, out
    assert "PEER_FAILED" in out, out
