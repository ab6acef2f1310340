# SPDX-License-Identifier: MIT
"""Runs `tern-inspect top` on a pseudo-terminal, as an operator would, and
checks that it gives the terminal back: it draws a frame on the alternate
screen with keys in raw mode, ends on 'q' (exit 0) or on a signal (exit
128 + the signal), and leaves the terminal's modes as they were and the
alternate screen left.

Usage: python3 check_top_tty.py TERN_INSPECT {q|SIGTERM|SIGHUP|SIGTSTP}
(SIGTSTP: stopped with Ctrl-Z's signal, the terminal is given back while
stopped, taken again on SIGCONT, then 'q'.) Prints what is wrong and exits
1, or exits 0. The TERN_* environment chooses the devices.
"""
import os
import select
import signal
import subprocess
import sys
import termios
import time

ENTER = b"\033[?1049h"
LEAVE = b"\033[?1049l"
WAIT = 10.0     # seconds: a bound for a hung top, not a measurement


def read_until(master, want, seen, deadline, start=0):
    """Reads from @master into @seen until @want appears after @start."""
    while seen.find(want, start) < 0:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([master], [], [], left)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return seen.find(want, start) >= 0
            if not chunk:
                return seen.find(want, start) >= 0
            seen.extend(chunk)
    return True


def drain(master, seen):
    """Whatever is left to read once the process ended."""
    while True:
        ready, _, _ = select.select([master], [], [], 0.2)
        if not ready:
            return
        try:
            chunk = os.read(master, 65536)
        except OSError:
            return
        if not chunk:
            return
        seen.extend(chunk)


def wait_exit(proc):
    try:
        return proc.wait(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None


def main():
    inspect, how = sys.argv[1], sys.argv[2]
    master, slave = os.openpty()
    before = termios.tcgetattr(slave)

    # Its own process group, whose parent (this one) is in another: not
    # orphaned, so SIGTSTP stops it as it would in a shell.
    proc = subprocess.Popen([inspect, "top", "-d", "0.2"], stdin=slave,
                            stdout=slave, stderr=slave,
                            preexec_fn=os.setpgrp)
    seen = bytearray()
    deadline = time.monotonic() + WAIT
    if not read_until(master, b"DEV ", seen, deadline):
        proc.kill()
        print("no frame drawn:", bytes(seen[-400:]))
        return 1
    during = termios.tcgetattr(slave)
    if during[3] & termios.ICANON or ENTER not in seen:
        proc.kill()
        print("top did not take the terminal (raw keys, alternate screen)")
        return 1

    want = 0
    if how == "q":
        os.write(master, b"q")
    elif how == "SIGTSTP":
        proc.send_signal(signal.SIGTSTP)
        if not read_until(master, LEAVE, seen, time.monotonic() + WAIT,
                          len(seen)):
            proc.kill()
            print("stopped top did not leave the alternate screen")
            return 1
        # Stopped: wait until the kernel says so, then check the terminal.
        for _ in range(100):
            with open(f"/proc/{proc.pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "T":
                    break
            time.sleep(0.05)
        else:
            proc.kill()
            print("top did not stop on SIGTSTP")
            return 1
        if termios.tcgetattr(slave) != before:
            proc.kill()
            print("stopped top left the terminal in raw mode")
            return 1
        proc.send_signal(signal.SIGCONT)
        mark = len(seen)
        if not read_until(master, ENTER, seen, time.monotonic() + WAIT,
                          mark):
            proc.kill()
            print("continued top did not take the terminal again")
            return 1
        os.write(master, b"q")
    else:
        signo = getattr(signal, how)
        proc.send_signal(signo)
        want = 128 + signo

    rc = wait_exit(proc)
    drain(master, seen)
    after = termios.tcgetattr(slave)
    os.close(master)
    os.close(slave)
    if rc is None:
        print(f"top did not end within {WAIT} s after {how}")
        return 1
    if rc != want:
        print(f"exit status {rc}, want {want}")
        return 1
    if after != before:
        print("terminal modes not restored:", before, after)
        return 1
    if seen.rfind(LEAVE) < seen.rfind(ENTER):
        print("the alternate screen was not left")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
