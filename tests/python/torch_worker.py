# SPDX-License-Identifier: MIT
"""One rank of test_torch_backend: RANK, WORLD_SIZE, MASTER_ADDR and
MASTER_PORT in the environment, as a launcher sets them. Runs every
collective on backend "tern" and on a gloo group of the same ranks, and
compares: gloo's answer where gloo has one, else the exact reference
(inputs are small integers, so every dtype's result is exact). Prints
"ok" and exits 0, or says what differed and exits 1.

argv[1]: "matrix" (the above), "stores" (init_process_group with a
FileStore, then a TCPStore), "killed" (all-reduces until a peer
dies; must raise, and before the group's timeout), "timeout" (rank 1
never comes to the all-reduce: rank 0's must raise at the group's 3 s
timeout, the job timeout being a minute) or "missing" (rank 0 of two
alone, over a FileStore: init_process_group must raise at the group's
5 s timeout; prints how long it took).
"""
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist

import tern.torch  # noqa: F401  registers "tern"

DTYPES = [torch.float32, torch.float16, torch.bfloat16, torch.int32,
          torch.int64, torch.int8, torch.uint8]
OPS = {"sum": dist.ReduceOp.SUM, "avg": dist.ReduceOp.AVG,
       "min": dist.ReduceOp.MIN, "max": dist.ReduceOp.MAX,
       "product": dist.ReduceOp.PRODUCT}
rank = int(os.environ["RANK"])
size = int(os.environ["WORLD_SIZE"])
# And one past a chunk (512 KiB): every dtype at up to 3 ranks, float32
# beyond (more ranks than cores take long enough with the small sizes).
SIZES = [0, 1, 7, 4099]
LARGE = (1 << 17) + 3
failures = []


def check(what, got, want):
    if got.dtype != want.dtype or got.shape != want.shape or \
            not torch.equal(got, want):
        diff = (got.to(torch.float64) - want.to(torch.float64)).abs()
        failures.append(f"rank {rank}: {what}: differs "
                        f"(max diff {diff.max().item() if diff.numel() else 0})")


def inputs(r, n, dtype, op):
    """Rank r's input: small, so that every reduction is exact."""
    i = torch.arange(n, dtype=torch.int64)
    if op == "product":
        v = 1 + ((i + r) % 7 == 0).to(torch.int64)
    else:
        v = (i * 3 + r * 7) % 5
        if dtype not in (torch.uint8,):
            v = v - 2
    return v.to(dtype)


def reference(n, dtype, op):
    xs = torch.stack([inputs(r, n, dtype, op).to(torch.int64)
                      for r in range(size)])
    if op in ("sum", "avg"):
        v = xs.sum(0)
    elif op == "product":
        v = xs.prod(0)
    elif op == "min":
        v = xs.min(0).values if n else xs.sum(0)
    else:
        v = xs.max(0).values if n else xs.sum(0)
    if op != "avg":
        return v.to(dtype)
    if dtype.is_floating_point:
        return (v.to(torch.float32) / size).to(dtype)
    return torch.div(v, size, rounding_mode="trunc").to(dtype)


def gloo_all_reduce(x, op, gloo):
    """gloo's answer, or None where gloo has none (avg, some dtypes)."""
    if op == "avg" or x.dtype == torch.bfloat16:
        return None
    y = x.clone()
    try:
        dist.all_reduce(y, op=OPS[op], group=gloo)
    except RuntimeError:
        return None
    return y


def matrix(gloo):
    for dtype in DTYPES:
        large = size <= 3 or dtype == torch.float32
        for op in OPS:
            for n in SIZES + ([LARGE] if large else []):
                x = inputs(rank, n, dtype, op)
                want = gloo_all_reduce(x, op, gloo)
                if want is None:
                    want = reference(n, dtype, op)
                t = x.clone()
                dist.all_reduce(t, op=OPS[op])
                check(f"all_reduce {dtype} {op} {n}", t, want)
        # the rest: copies, and sums in reduce and reduce-scatter
        n = 1001
        x = inputs(rank, n, dtype, "sum")
        # non-contiguous input, strided output
        src = torch.zeros(2 * n, dtype=dtype)
        src[::2] = x
        t = src[::2]
        dist.all_reduce(t)
        check(f"all_reduce strided {dtype}", t, reference(n, dtype, "sum"))
        b = x.clone() if rank == size - 1 else torch.zeros(n, dtype=dtype)
        dist.broadcast(b, size - 1)
        check(f"broadcast {dtype}", b, inputs(size - 1, n, dtype, "sum"))
        r = x.clone()
        dist.reduce(r, 0, op=dist.ReduceOp.MAX)
        if rank == 0:
            check(f"reduce max {dtype}", r, reference(n, dtype, "max"))
        outs = [torch.zeros(n, dtype=dtype) for _ in range(size)]
        dist.all_gather(outs, x)
        for q in range(size):
            check(f"all_gather {dtype} [{q}]", outs[q],
                  inputs(q, n, dtype, "sum"))
        flat = torch.zeros(size * n, dtype=dtype)
        dist.all_gather_into_tensor(flat, x)
        check(f"all_gather_into_tensor {dtype}", flat,
              torch.cat([inputs(q, n, dtype, "sum") for q in range(size)]))
        big = inputs(rank, size * n, dtype, "sum")
        out = torch.zeros(n, dtype=dtype)
        dist.reduce_scatter_tensor(out, big)
        check(f"reduce_scatter_tensor {dtype}", out,
              reference(size * n, dtype, "sum")[rank * n:(rank + 1) * n])
        out = torch.zeros(n, dtype=dtype)
        dist.reduce_scatter(out, list(big.chunk(size)))
        check(f"reduce_scatter {dtype}", out,
              reference(size * n, dtype, "sum")[rank * n:(rank + 1) * n])
    # all-to-all: even, uneven splits, lists of sizes their own
    n = 5
    src = torch.arange(size * n, dtype=torch.float32) + 1000 * rank
    dst = torch.zeros(size * n)
    dist.all_to_all_single(dst, src)
    want = torch.cat([torch.arange(rank * n, (rank + 1) * n,
                                   dtype=torch.float32) + 1000 * q
                      for q in range(size)])
    check("all_to_all_single", dst, want)
    # rank r sends q + 1 rows to rank q
    rows = [q + 1 for q in range(size)]
    src = torch.full((sum(rows), 2), float(rank))
    dst = torch.zeros((size * (rank + 1), 2))
    dist.all_to_all_single(dst, src, [rank + 1] * size, rows)
    check("all_to_all_single uneven", dst,
          torch.cat([torch.full((rank + 1, 2), float(q))
                     for q in range(size)]))
    ins = [torch.full((q + 1,), rank * 10 + q, dtype=torch.int64)
           for q in range(size)]
    outs = [torch.zeros(rank + 1, dtype=torch.int64) for _ in range(size)]
    dist.all_to_all(outs, ins)
    for q in range(size):
        check(f"all_to_all [{q}]", outs[q],
              torch.full((rank + 1,), q * 10 + rank, dtype=torch.int64))
    # send/recv round a ring, evens first
    if size > 1:
        out, back = torch.full((9,), float(rank)), torch.zeros(9)
        nxt, prv = (rank + 1) % size, (rank - 1) % size
        if rank % 2 == 0:
            dist.send(out, nxt)
            dist.recv(back, prv)
        else:
            dist.recv(back, prv)
            dist.send(out, nxt)
        check("send/recv", back, torch.full((9,), float(prv)))
    # asynchronous work, futures
    t = torch.ones(100)
    work = dist.all_reduce(t, async_op=True)
    fut = work.get_future()
    work.wait()
    check("async all_reduce", t, torch.full((100,), float(size)))
    check("future", fut.value()[0], torch.full((100,), float(size)))
    dist.barrier()
    # bad arguments raise, clearly
    for bad, words in (
            (lambda: dist.all_reduce(torch.zeros(3, dtype=torch.float64)),
             "not supported"),
            (lambda: dist.all_gather([torch.zeros(2)] * size, torch.zeros(3)),
             "elements"),
            (lambda: dist.all_reduce(torch.zeros(3), op=dist.ReduceOp.BAND),
             "not supported")):
        try:
            bad()
            failures.append(f"rank {rank}: no error for a bad call ({words})")
        except (RuntimeError, ValueError) as e:
            if words not in str(e):
                failures.append(f"rank {rank}: unclear error: {e}")


def killed():
    """All-reduces until a peer is killed: must raise, well before the
    group's timeout (60 s), with the communicator's error."""
    t = torch.ones(1 << 16)
    print("ready", flush=True)
    start = time.monotonic()
    try:
        while True:
            start = time.monotonic()
            dist.all_reduce(t)
            t.fill_(1)
    except RuntimeError as e:
        took = time.monotonic() - start
        if "PEER_FAILED" not in str(e) and "CANCELLED" not in str(e):
            failures.append(f"rank {rank}: raised {e}")
        if took > 30:
            failures.append(f"rank {rank}: raised after {took:.0f} s")
        print(f"rank {rank}: raised after {took:.3f} s: {str(e)[:120]}",
              flush=True)


def absent():
    """Rank 1 stays away; rank 0's all-reduce must end at the timeout."""
    if rank == 1:
        time.sleep(8)
        os._exit(0)
    start = time.monotonic()
    try:
        dist.all_reduce(torch.ones(1000))
        failures.append("rank 0: the all-reduce without rank 1 returned")
    except RuntimeError as e:
        took = time.monotonic() - start
        if took > 15:
            failures.append(f"rank 0: raised after {took:.0f} s")
        print(f"rank 0: raised after {took:.3f} s: {str(e)[:120]}",
              flush=True)


def stores():
    """init_process_group with a FileStore (file://), then a TCPStore."""
    dist.init_process_group(
        "tern", init_method="file://" + os.environ["TEST_FILE_STORE"],
        rank=rank, world_size=size)
    t = torch.full((10,), float(rank))
    dist.all_reduce(t)
    check("all_reduce over a FileStore", t,
          torch.full((10,), float(size * (size - 1) // 2)))
    dist.destroy_process_group()
    store = dist.TCPStore("127.0.0.1", int(os.environ["TEST_TCP_STORE_PORT"]),
                          size, rank == 0, timedelta(seconds=60))
    dist.init_process_group("tern", store=store, rank=rank, world_size=size)
    t = torch.full((10,), 2.0)
    dist.all_reduce(t, op=dist.ReduceOp.PRODUCT)
    check("all_reduce over a TCPStore", t, torch.full((10,), 2.0 ** size))
    dist.destroy_process_group()


def missing():
    """No rank 1 ever comes: init must fail at the group's timeout."""
    start = time.monotonic()
    try:
        dist.init_process_group(
            "tern", init_method="file://" + os.environ["TEST_FILE_STORE"],
            rank=rank, world_size=size, timeout=timedelta(seconds=5))
        failures.append("rank 0: init without rank 1 returned")
    except RuntimeError as e:
        print(f"rank 0: raised after {time.monotonic() - start:.3f} s: "
              f"{str(e)[:300]}", flush=True)


def main():
    mode = sys.argv[1]
    if mode == "missing":
        missing()
        print("ok" if not failures else "\n".join(failures), flush=True)
        os._exit(0 if not failures else 1)
    if mode == "stores":
        stores()
        print("ok" if not failures else "\n".join(failures), flush=True)
        os._exit(0 if not failures else 1)
    timeout = 3 if mode == "timeout" else 60
    dist.init_process_group("tern", timeout=timedelta(seconds=timeout))
    if mode == "matrix":
        gloo = dist.new_group(backend="gloo")
        matrix(gloo)
        dist.destroy_process_group()
    elif mode == "timeout":
        absent()
    else:
        killed()
    for f in failures[:20]:
        print(f, flush=True)
    print("ok" if not failures else f"{len(failures)} failures", flush=True)
    # A survivor's group is broken: leave without tearing it down.
    os._exit(0 if not failures else 1)


main()
