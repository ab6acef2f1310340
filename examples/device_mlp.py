#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Trains a small MLP data-parallel entirely on Tern devices: forward,
backward and the optimizer step are kernels on the device's engines, and
each layer's gradients are all-reduced on a second stream as soon as the
backward pass has made them (an event between the streams), while the
backward pass goes on to the layers below.

    examples/device_mlp.py --nprocs 4

starts four ranks, one per device, in processes of its own; with no Tern
device, libtern simulates them (with 2 cores a chip unless
TERN_SIM_CORES says otherwise). It trains the model of ddp_train.py from
the same initial weights and batches as a float32 PyTorch reference on
the CPU, prints both losses at every step, and fails (exit 1) if a loss
differs from the reference by more than --tolerance (relative) or if any
rank's parameters are not bit for bit rank 0's at the end. --no-overlap
all-reduces only once the backward pass is over, for comparison; the
numbers are the same to the bit. A rank that fails says why (its
tern.Error's status: TERN_ERROR_PEER_FAILED when a peer died), and the
example exits 1 without waiting for the ranks that are gone.
"""
import argparse
import hashlib
import multiprocessing
import os
import queue
import sys
import time

import numpy as np


def batches(rank, world, args):
    """Each rank's share of every global batch, and the whole of it."""
    rng = np.random.default_rng(args.seed)
    teacher = rng.standard_normal((args.features, args.classes))
    for _ in range(args.steps):
        x = rng.standard_normal((args.batch * world, args.features))
        y = (x @ teacher).argmax(1)
        yield x.astype(np.float32), y, x[rank::world].astype(np.float32), \
            y[rank::world]


def initial_layers(args):
    """(weight, bias) of each Linear as PyTorch initialises them."""
    import torch
    torch.manual_seed(args.seed)
    sizes = [args.features, args.hidden, args.hidden, args.classes]
    layers = [torch.nn.Linear(a, b) for a, b in zip(sizes, sizes[1:])]
    return [(lin.weight.detach().numpy().copy(),
             lin.bias.detach().numpy().copy()) for lin in layers]


def reference_losses(args, world):
    """The same training in float32 PyTorch on the CPU, on global batches."""
    import torch
    layers = initial_layers(args)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.features, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU(),
        torch.nn.Linear(args.hidden, args.classes))
    with torch.no_grad():
        for lin, (w, b) in zip(model[::2], layers):
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    losses = []
    for x, y, _, _ in batches(0, world, args):
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(x)),
                                                 torch.from_numpy(y))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


class Param:
    """A float32 tensor on the device, its gradient and its velocity."""

    def __init__(self, dev, array):
        self.shape = array.shape
        self.count = array.size
        self.value = dev.alloc(array.nbytes)
        self.grad = dev.alloc(array.nbytes)
        self.velocity = dev.alloc(array.nbytes)
        self.host().ravel()[:] = array.ravel()

    def host(self):
        return np.frombuffer(self.value, dtype=np.float32).reshape(self.shape)

    def matrix(self, grad=False):
        import tern
        rows, cols = self.shape if len(self.shape) == 2 else (1, self.shape[0])
        return tern.Matrix(self.grad if grad else self.value, rows, cols)


def rank_main(rank, world, uid, args, out):
    """One rank; on a tern.Error it reports the status and exits 1."""
    import tern
    try:
        train(rank, world, uid, args, out)
    except tern.Error as e:
        out.put((rank, None, e.status))
        sys.exit(1)


def train(rank, world, uid, args, out):
    import tern
    dev = tern.Device(rank)
    comm = tern.Comm(world, uid, rank, dev)
    compute, comms = dev.stream(), dev.stream()
    b = args.batch

    def mat(rows, cols):
        return tern.Matrix(dev.alloc(rows * cols * 4), rows, cols)

    params = [(Param(dev, w), Param(dev, bias))
              for w, bias in initial_layers(args)]
    widths = [args.features, args.hidden, args.hidden, args.classes]
    x = mat(b, args.features)
    acts = [x] + [mat(b, w) for w in widths[1:]]     # h1, h2, logits
    grads = [None] + [mat(b, w) for w in widths[1:]]  # dh1, dh2, dlogits
    targets, loss = mat(b, args.classes), dev.alloc(b * 4)
    losses, times = [], []
    for step, (_, _, xs, ys) in enumerate(batches(rank, world, args), 1):
        if args.die and args.die == (rank, step):
            os._exit(3)         # as a crash would: no goodbye to the peers
        np.frombuffer(x.buffer, dtype=np.float32)[:] = xs.ravel()
        onehot = np.zeros((b, args.classes), np.float32)
        onehot[np.arange(b), ys] = 1
        np.frombuffer(targets.buffer, dtype=np.float32)[:] = onehot.ravel()
        wall = time.perf_counter()
        start = dev.event()
        start.record(compute)
        # forward: h = relu(h W^T + b), the last layer without relu
        for i, (w, bias) in enumerate(params):
            tern.gemm(acts[i], w.matrix(), acts[i + 1], compute,
                      transpose_b=True, bias=bias.value,
                      activation="relu" if i < 2 else "identity")
        # the mean over the global batch: each rank scales by 1/(b world)
        tern.cross_entropy(acts[3], targets, loss, compute,
                           dlogits=grads[3], grad_scale=1 / (b * world))
        # backward, a layer at a time: its weights' gradients first, all-
        # reduced at once while the gradient goes on to the layer below
        for i in (2, 1, 0):
            w, bias = params[i]
            tern.gemm(grads[i + 1], acts[i], w.matrix(grad=True), compute,
                      transpose_a=True)
            tern.sum_rows(grads[i + 1], bias.grad, compute)
            if args.overlap or i == 0:
                ready = dev.event()
                ready.record(compute)
                comms.wait_event(ready)
                for p in (w, bias) if args.overlap else \
                        [q for layer in params for q in layer]:
                    comm.all_reduce(p.grad, p.grad, p.count, "float32",
                                    "sum", comms)
            if i:
                tern.gemm(grads[i + 1], w.matrix(), grads[i], compute)
                tern.activation_backward(acts[i], grads[i], grads[i],
                                         "relu", compute)
        done = dev.event()
        done.record(comms)
        compute.wait_event(done)
        for w, bias in params:
            for p in (w, bias):
                tern.sgd_step(p.value, p.grad, p.count, compute, lr=args.lr,
                              velocity=p.velocity, momentum=0.9, step=step)
        end = dev.event()
        end.record(compute)
        compute.synchronize()
        # the step, and the communication still going when the backward
        # pass was over (ready: its last layer's gradients)
        times.append((start.elapsed_ms(end),
                      max(0.0, ready.elapsed_ms(done)),
                      time.perf_counter() - wall))
        local = np.frombuffer(loss, dtype=np.float32, count=b).sum()
        losses.append(float(local))
    digest = hashlib.sha256()
    for w, bias in params:
        digest.update(bytes(w.value))
        digest.update(bytes(bias.value))
    comm.destroy()
    out.put((rank, losses, (digest.hexdigest(), times)))
    dev.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nprocs", type=int, default=2,
                    help="ranks, one device each (1 to 16)")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch", type=int, default=32,
                    help="rows a rank's batch")
    ap.add_argument("--features", type=int, default=64)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--hidden", type=int, default=256,
                    help="width of the two hidden layers")
    ap.add_argument("--timing", action="store_true",
                    help="modelled step time and exposed communication "
                    "(the simulator's TERN_SIM_CLOCK=model)")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tolerance", type=float, default=1e-4,
                    help="largest relative difference of a step's loss")
    ap.add_argument("--no-overlap", dest="overlap", action="store_false",
                    help="all-reduce after the whole backward pass")
    ap.add_argument("--die", metavar="RANK:STEP",
                    type=lambda v: tuple(int(x) for x in v.split(":")),
                    help="(to test failures) rank RANK exits at step STEP "
                    "without a word, as a crashed process does")
    args = ap.parse_args()
    if not 1 <= args.nprocs <= 16 or args.steps < 1 or args.batch < 1:
        ap.error("--nprocs takes 1 to 16, --steps and --batch at least 1")
    os.environ.setdefault("TERN_SIM_CORES", "2")
    if args.timing:
        os.environ["TERN_SIM_CLOCK"] = "model"
    import tern
    if tern.device_count() < args.nprocs:
        sys.exit(f"device_mlp: {args.nprocs} ranks need as many devices; "
                 f"there are {tern.device_count()}")
    uid = tern.unique_id()
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=rank_main, args=(r, args.nprocs, uid, args,
                                                 out))
             for r in range(args.nprocs)]
    for p in procs:
        p.start()
    results, errors, silent = {}, {}, set()
    while len(set(results) | set(errors) | silent) < len(procs):
        try:
            rank, losses, digest = out.get(timeout=1)
        except queue.Empty:
            # a rank gone without a word (killed) is not waited for
            silent |= {r for r, p in enumerate(procs) if p.exitcode}
            continue
        if losses is None:
            errors[rank] = digest
        else:
            results[rank] = (losses, *digest)
    for p in procs:
        p.join(timeout=60)
    failed = [f"rank {r}: {e}" for r, e in errors.items()] + [
        f"rank {r} ended with status {procs[r].exitcode} and no word"
        for r in silent - set(errors) - set(results)]
    if failed:
        sys.exit("device_mlp: " + "; ".join(sorted(failed)))
    ref = reference_losses(args, args.nprocs)
    worst = 0.0
    print(f"# {args.nprocs} ranks, overlap {'on' if args.overlap else 'off'}")
    print("# step  tern loss     PyTorch CPU   rel diff")
    for step, want in enumerate(ref):
        got = sum(results[r][0][step] for r in results) / (
            args.batch * args.nprocs)
        diff = abs(got - want) / abs(want)
        worst = max(worst, diff)
        print(f"{step + 1:6d}  {got:.9f}  {want:.9f}  {diff:.2e}")
    same = len({d for _, d, _ in results.values()}) == 1
    print(f"# parameters identical on every rank: {'yes' if same else 'NO'}"
          f" (sha256 {results[0][1][:16]})")
    print(f"# largest loss difference {worst:.2e} (tolerance "
          f"{args.tolerance:g}): {'OK' if worst <= args.tolerance else 'FAIL'}")
    if args.timing:
        # every rank's steps but the first (which sets up), averaged
        steps = [t for r in results for t in results[r][2][1:]] or \
            [t for r in results for t in results[r][2]]
        step = sum(t[0] for t in steps) / len(steps) * 1000
        exposed = sum(t[1] for t in steps) / len(steps) * 1000
        print(f"# modelled step {step:.2f} us, exposed communication "
              f"{exposed:.2f} us ({100 * exposed / step:.1f} %)")
    # rank 0's steps but the first, by the host's clock
    walls = sorted(t[2] for t in results[0][2][1:] or results[0][2])
    print(f"# step time median {walls[len(walls) // 2] * 1000:.2f} ms "
          f"(host clock, rank 0)")
    if not same or worst > args.tolerance:
        sys.exit(1)


if __name__ == "__main__":
    main()
