# SPDX-License-Identifier: MIT
"""pytest for the Python module: a simulated machine of four devices, and
a summary in cmocka's words, which tests/check.sh counts."""
import os

# Before libtern reads them: the suites' machine, whatever the shell says.
os.environ.setdefault("TERN_BACKEND", "sim")
os.environ["TERN_SIM_DEVICES"] = "4"
os.environ.setdefault("TERN_SIM_MEM_MB", "64")
# Chips of two cores, for the compute kernels (test_compute.py).
os.environ.setdefault("TERN_SIM_CORES", "2")
os.environ.setdefault("TERN_SIM_MACHINE", "auto")


def pytest_terminal_summary(terminalreporter):
    stats = terminalreporter.stats
    passed = len(stats.get("passed", []))
    failed = len(stats.get("failed", [])) + len(stats.get("error", []))
    skipped = len(stats.get("skipped", []))
    terminalreporter.write_line(f"[  PASSED  ] {passed} test(s).")
    if skipped:
        terminalreporter.write_line(f"[  SKIPPED ] {skipped} test(s).")
    if failed:
        terminalreporter.write_line(f"[  FAILED  ] {failed} test(s), listed above.")
