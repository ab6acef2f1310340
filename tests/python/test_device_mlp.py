# SPDX-License-Identifier: MIT
"""examples/device_mlp.py: an MLP trained data-parallel entirely on the
devices, its losses those of a float32 PyTorch CPU reference, its
parameters the same on every rank and the same with and without the
all-reduce overlapping the backward pass."""
import os
import re
import subprocess
import sys
import time

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples",
                       "device_mlp.py")


def run(*args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, EXAMPLE, *args], env=env,
                          capture_output=True, text=True, timeout=300)


def losses_and_digest(out):
    rows = re.findall(r"^ +\d+  ([0-9.]+)  ([0-9.]+)  ", out, re.M)
    digest = re.search(r"identical on every rank: yes \(sha256 (\w+)\)", out)
    return [(float(a), float(b)) for a, b in rows], digest and digest[1]


def test_losses_match_pytorch_and_overlap_changes_no_bit():
    digests = []
    for ranks, overlap in (("2", []), ("4", []), ("4", ["--no-overlap"])):
        out = run("--nprocs", ranks, "--steps", "4", *overlap)
        assert out.returncode == 0, out.stdout + out.stderr
        rows, digest = losses_and_digest(out.stdout)
        assert len(rows) == 4 and digest, out.stdout
        for got, want in rows:
            assert abs(got - want) <= 1e-4 * want, out.stdout
        digests.append(digest)
    assert digests[1] == digests[2]


def test_a_loss_off_the_reference_fails():
    out = run("--nprocs", "2", "--steps", "2", "--tolerance", "1e-12")
    assert out.returncode == 1 and "FAIL" in out.stdout, out.stdout


def test_says_what_it_wants():
    out = run("--nprocs", "0")
    assert out.returncode == 2 and "--nprocs takes 1 to 16" in out.stderr
    # the suite's machine has four devices (conftest.py)
    out = run("--nprocs", "5")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "5 ranks need as many devices; there are 4" in out.stderr


def test_a_rank_killed_mid_step_fails_the_others_promptly():
    """Rank 1 exits at step 2 as a crash would; rank 0's all-reduce ends
    with PEER_FAILED, well before any timeout, and the example says so."""
    start = time.monotonic()
    out = run("--nprocs", "2", "--steps", "4", "--die", "1:2")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "rank 0: TERN_ERROR_PEER_FAILED" in out.stderr, out.stderr
    assert "rank 1 ended with status 3 and no word" in out.stderr
    assert time.monotonic() - start < 60


def test_timing_splits_the_modelled_step():
    """--timing: the modelled step and the communication left exposed
    after the backward pass, a part of it; none of it without peers."""
    figures = []
    for ranks in ("2", "1"):
        out = run("--nprocs", ranks, "--steps", "2", "--timing")
        assert out.returncode == 0, out.stdout + out.stderr
        m = re.search(r"^# modelled step ([0-9.]+) us, exposed communication "
                      r"([0-9.]+) us", out.stdout, re.M)
        assert m, out.stdout
        figures.append((float(m[1]), float(m[2])))
    (step, exposed), (step1, exposed1) = figures
    assert 0 < exposed < step and step1 > 0, figures
    assert exposed1 < exposed, figures
