#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Trains a small MLP with DistributedDataParallel over torch.distributed's
backend "tern" (or "gloo", to compare), on data it makes itself, and
prints the loss of every step.

    examples/ddp_train.py --nprocs 4 --backend tern

starts four ranks itself (torch.multiprocessing); under a launcher that
sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT it is one rank. With
no Tern device, libtern simulates them. The same seed gives the same
batches and the same initial model whatever the backend, so the losses
of --backend tern and --backend gloo agree within float tolerance; at the
end each rank checks that its parameters are bit for bit everyone's.
"""
import argparse
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

HIDDEN = 256


def batches(rank, world, steps, batch, features, classes, seed):
    """Each rank's share of a global batch, the same for every backend."""
    g = torch.Generator().manual_seed(seed)
    teacher = torch.randn(features, classes, generator=g)
    for _ in range(steps):
        x = torch.randn(batch * world, features, generator=g)
        y = (x @ teacher).argmax(1)
        yield x[rank::world], y[rank::world]


def train(rank, world, args):
    if args.backend == "tern":
        import tern.torch  # noqa: F401  registers "tern"
    dist.init_process_group(args.backend, rank=rank, world_size=world,
                            timeout=timedelta(seconds=120))
    torch.manual_seed(args.seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(args.features, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, args.classes))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    step_times = []
    for step, (x, y) in enumerate(batches(rank, world, args.steps,
                                          args.batch, args.features,
                                          args.classes, args.seed)):
        start = time.perf_counter()
        opt.zero_grad()
        loss = loss_fn(ddp(x), y)
        loss.backward()
        opt.step()
        step_times.append(time.perf_counter() - start)
        # the global batch's loss: every rank's, averaged
        total = loss.detach().clone()
        dist.all_reduce(total)
        if rank == 0:
            print(f"step {step:3d} loss {total.item() / world:.6f}",
                  flush=True)
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    everyone = [torch.empty_like(flat) for _ in range(world)]
    dist.all_gather(everyone, flat)
    same = all(torch.equal(flat, other) for other in everyone)
    if rank == 0:
        steady = sorted(step_times[1:] or step_times)
        print(f"parameters equal on every rank, bit for bit: "
              f"{'yes' if same else 'NO'}", flush=True)
        print(f"step time median {steady[len(steady) // 2] * 1000:.2f} ms "
              f"({args.backend}, {world} ranks)", flush=True)
    dist.destroy_process_group()
    if not same:
        sys.exit(1)


def spawned(rank, world, args):
    os.environ["LOCAL_RANK"] = str(rank)
    train(rank, world, args)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["tern", "gloo"], default="tern")
    p.add_argument("--nprocs", type=int, default=0,
                   help="start this many ranks here (else RANK and "
                        "WORLD_SIZE say which one this is)")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch", type=int, default=64, help="per rank")
    p.add_argument("--features", type=int, default=64)
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if args.nprocs < 0 or args.steps < 1 or args.batch < 1:
        p.error("--nprocs must be at least 0, --steps and --batch at least 1")
    if args.nprocs:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29512")
        mp.spawn(spawned, args=(args.nprocs, args), nprocs=args.nprocs)
        return
    missing = [v for v in ("RANK", "WORLD_SIZE", "MASTER_ADDR",
                           "MASTER_PORT") if v not in os.environ]
    if missing:
        p.error(f"no --nprocs, and the launcher did not set {', '.join(missing)}")
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args)


if __name__ == "__main__":
    main()
