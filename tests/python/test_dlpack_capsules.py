# SPDX-License-Identifier: MIT
"""tern.from_dlpack and capsules made by hand (dlpack_capsule.py): a
well-formed one is copied; every malformed field, size overflow and
unreadable memory is refused with tern.Error and its reason, the
capsule's deleter run once; a deleter's exception is raised, never lost.
Each case runs in a process of its own, so that a crash fails it."""
import os
import re
import subprocess
import sys

import pytest

HELPER = os.path.join(os.path.dirname(__file__), "dlpack_capsule.py")

REFUSED = {
    "null-data": "NULL data",
    "null-shape": "no shape",
    "negative-ndim": "dimensions",
    "too-many-dims": "dimensions",
    "negative-dim": "negative",
    "size-overflows": "too large",
    "bytes-overflow": "too large",
    "offset-2-60": "not readable",
    "offset-wraps": "past the end of the address space",
    "shape-past-data": "not readable",
    "not-compact": "contiguous",
    "negative-stride": "contiguous",
    "zero-bits": "dtype",
    "odd-bits": "dtype",
    "lanes": "dtype",
    "unknown-code": "dtype",
    "cuda": "CPU",
    "zero-size": "no elements",
    "zero-size-null-data": "no elements",
}


def run(case):
    proc = subprocess.run([sys.executable, HELPER, case], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, \
        f"{case}: exit {proc.returncode}\n{proc.stdout}{proc.stderr[-2000:]}"
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("deleter "), proc.stdout
    return lines[0], int(lines[1].split()[1])


@pytest.mark.parametrize("case", ["valid", "valid-2d-strided"])
def test_well_formed_capsule_is_copied(case):
    outcome, deleted = run(case)
    assert outcome == "accepted 16 000102030405060708090a0b0c0d0e0f"
    assert deleted == 1


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_malformed_capsule_is_refused(case):
    outcome, deleted = run(case)
    assert re.match(r"refused Error: TERN_ERROR_INVALID_ARGUMENT: from_dlpack: ",
                    outcome), outcome
    assert REFUSED[case] in outcome, outcome
    assert deleted == 1


def test_capsule_of_another_name_is_not_consumed():
    outcome, deleted = run("not-dltensor")
    assert outcome.startswith("refused Error: ") and "DLPack" in outcome
    assert deleted == 0


def test_deleter_exception_is_raised():
    """PyErr_NoMemory as the deleter: it raises MemoryError."""
    outcome, _ = run("deleter-raises")
    assert outcome.startswith("refused MemoryError:"), outcome
    outcome, _ = run("deleter-raises-on-refusal")
    assert outcome.startswith("refused MemoryError (after Error):"), outcome


def test_refusal_survives_a_python_deleter():
    """A deleter written in Python (a ctypes callback) runs with no
    exception pending, and the refusal is what from_dlpack raises."""
    outcome, deleted = run("python-deleter-raises-on-refusal")
    assert outcome.startswith("refused Error: ") and "negative" in outcome, outcome
    assert deleted == 1
