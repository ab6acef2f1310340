# SPDX-License-Identifier: MIT
"""examples/ddp_train.py: DDP over "tern" trains as over "gloo" (the same
losses within float tolerance), its parameters equal on every rank."""
import os
import re
import socket
import subprocess
import sys

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                       "ddp_train.py")


def run(backend):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, MASTER_PORT=str(port), TERN_SIM_DEVICES="8",
               GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, EXAMPLE, "--nprocs", "2",
                          "--steps", "6", "--backend", backend],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "bit for bit: yes" in out.stdout, out.stdout
    return [float(x) for x in re.findall(r"^step +\d+ loss ([0-9.]+)$",
                                         out.stdout, re.M)]


def test_ddp_losses_match_gloo():
    tern_losses, gloo_losses = run("tern"), run("gloo")
    assert len(tern_losses) == 6 and len(gloo_losses) == 6
    for a, b in zip(tern_losses, gloo_losses):
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (tern_losses,
                                                       gloo_losses)
    assert tern_losses[-1] < tern_losses[0]


def test_ddp_example_says_what_it_wants():
    env = {k: v for k, v in os.environ.items()
           if k not in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")}
    out = subprocess.run([sys.executable, EXAMPLE], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "did not set RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT" in out.stderr
    out = subprocess.run([sys.executable, EXAMPLE, "--steps", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--steps" in out.stderr
