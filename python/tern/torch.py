# SPDX-License-Identifier: MIT
"""torch.distributed's backend "tern".

    import tern.torch
    torch.distributed.init_process_group("tern", ...)

Each rank is a process on the Tern device of its local rank (LOCAL_RANK,
else its rank modulo the devices); collectives on CPU tensors are staged
through that device and run by libtern (ProcessGroupTern, tern._torch).
"""
import torch  # noqa: F401  (libtorch first: tern._torch links to it)
import torch.distributed as dist

from . import _torch


def _create(store, rank, size, timeout):
    return _torch.create(store, rank, size, timeout)


# Importing twice registers once.
if not hasattr(dist.Backend, "TERN"):
    dist.Backend.register_backend("tern", _create)
