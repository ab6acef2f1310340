#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Benchmark, not a test: torch.distributed.all_reduce over the backend
"tern" against "gloo" (PyTorch's own CPU backend), the same processes,
sizes and float32 sum, side by side in one run; then DDP's step time
with each (examples/ddp_train.py).

    tools/compare/torch-allreduce.py [RANKS...]      default: 2 4 8

Prints per rank count and size both times (the median of the iterations
after warm-up, in microseconds, wall clock on rank 0), the bus bandwidth
as nccl-tests counts it (2(n-1)/n * bytes / time) and the ratio gloo time
/ tern time (above 1: tern is faster). Sizes: TERN_COMPARE_MIN and
TERN_COMPARE_MAX bytes (8 and 64M) by factors of TERN_COMPARE_FACTOR (8);
TERN_COMPARE_ITERS iterations (20). Needs `make` (PYTHONPATH=build/python).
"""
import os
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")


def setting(name, default, least):
    """The whole number @name says (at least @least), else exit saying so."""
    text = os.environ.get(name, str(default))
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        sys.exit(f"torch-allreduce: {name}={text}: want a whole number of "
                 f"at least {least}")
    return value


def sizes():
    lo = setting("TERN_COMPARE_MIN", 8, 1)
    hi = setting("TERN_COMPARE_MAX", 64 << 20, lo)
    f = setting("TERN_COMPARE_FACTOR", 8, 2)
    s = lo
    while s <= hi:
        yield s
        s *= f
    if s // f != hi:
        yield hi  # the largest asked for, whatever the factor


def rank_main(backend):
    import torch
    import torch.distributed as dist
    if backend == "tern":
        import tern.torch  # noqa: F401
    dist.init_process_group(backend)
    rank, n = dist.get_rank(), dist.get_world_size()
    iters = setting("TERN_COMPARE_ITERS", 20, 1)
    for size in sizes():
        t = torch.ones(max(size // 4, 1))
        for _ in range(3):
            dist.all_reduce(t)
        times = []
        for _ in range(iters):
            dist.barrier()
            start = time.perf_counter()
            dist.all_reduce(t)
            times.append(time.perf_counter() - start)
        if rank == 0:
            print(size, statistics.median(times) * 1e6, flush=True)
    dist.destroy_process_group()


def launch(n, args, extra=None):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for r in range(n):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r),
                   WORLD_SIZE=str(n), MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), TERN_SIM_DEVICES=str(max(n, 4)),
                   GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1",
                   **(extra or {}))
        procs.append(subprocess.Popen(args, env=env, stdout=subprocess.PIPE,
                                      text=True))
    out = [p.communicate()[0] for p in procs]
    if any(p.returncode for p in procs):
        sys.exit(f"torch-allreduce: a rank of {args} failed")
    return out[0]


def main():
    if not all(a.isdigit() and int(a) >= 1 for a in sys.argv[1:]):
        sys.exit("torch-allreduce: usage: torch-allreduce.py [RANKS...], "
                 "each a number of ranks of at least 1")
    ranks = [int(a) for a in sys.argv[1:]] or [2, 4, 8]
    list(sizes())  # the settings checked before any rank starts
    setting("TERN_COMPARE_ITERS", 20, 1)
    os.environ.setdefault("PYTHONPATH", os.path.join(TOP, "build", "python"))
    print(f"{'ranks':>6} {'size':>10} {'tern-us':>11} {'gloo-us':>11} "
          f"{'tern-busbw':>10} {'gloo-busbw':>10} {'ratio':>6}")
    for n in ranks:
        got = {}
        for backend in ("tern", "gloo"):
            out = launch(n, [sys.executable, __file__, "--rank", backend])
            got[backend] = {int(s): float(us) for s, us in
                            (line.split() for line in out.splitlines())}
        for size in sorted(got["tern"]):
            t, g = got["tern"][size], got["gloo"][size]
            bus = 2 * (n - 1) / n * size / 1e3
            print(f"{n:6d} {size:10d} {t:11.1f} {g:11.1f} "
                  f"{bus / t:10.3f} {bus / g:10.3f} {g / t:6.2f}",
                  flush=True)
    example = os.path.join(TOP, "examples", "ddp_train.py")
    for n in ranks:
        for backend in ("tern", "gloo"):
            out = subprocess.run([sys.executable, example, "--nprocs", str(n),
                                  "--backend", backend, "--steps", "30"],
                                 env=dict(os.environ,
                                          TERN_SIM_DEVICES=str(max(n, 4)),
                                          GLOO_SOCKET_IFNAME="lo",
                                          OMP_NUM_THREADS="1"),
                                 capture_output=True, text=True, check=True)
            print("ddp:", [line for line in out.stdout.splitlines()
                           if line.startswith("step time")][0], flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--rank":
        rank_main(sys.argv[2])
    else:
        main()
