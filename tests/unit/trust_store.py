# SPDX-License-Identifier: MIT
"""The torch backend's store, read by another user (tests/unit/test_trust.sh).

    trust_store.py rank R PORT DIR   the job's user: rank R of 2 over a
                                     TCPStore at PORT; rank 1 joins once
                                     DIR/go exists; both check an all-reduce
    trust_store.py steal PORT DIR    another user: reads the store, tries to
                                     join as rank 1 with what it holds, then
                                     with the id turned back into a full one
                                     (a secret of zeros); writes DIR/go

Exit 0 when what each side saw is what Tern promises: the store holds no
secret, the stranger is refused both ways with TERN_ERROR_PERMISSION, and
the job's all-reduce is exactly 2.
"""
import datetime
import os
import struct
import sys
import time

import torch
import torch.distributed as dist

import tern
import tern.torch  # noqa: F401  (registers the backend)
from tern import _torch

KEY = "tern_unique_id"
# struct coll_id (libruntime/coll/trust/trust.h): magic, secret, tag, family, port,
# addr, then where the secret is.
SECRET = slice(8, 40)
FROM = struct.calcsize("=8s32s16sHH16s")


def store(port, master):
    return dist.TCPStore("127.0.0.1", port, 2, master,
                         timeout=datetime.timedelta(seconds=60),
                         wait_for_workers=False)


def rank(r, port, where):
    s = store(port, r == 0)
    if r == 1:
        go = os.path.join(where, "go")
        end = time.monotonic() + 60
        while not os.path.exists(go) and time.monotonic() < end:
            time.sleep(0.05)
    pg = _torch.create(s, r, 2, datetime.timedelta(seconds=60))
    t = torch.ones(8)
    pg.allreduce([t]).wait()
    if not torch.equal(t, torch.full((8,), 2.0)):
        print(f"rank {r}: all-reduce gave {t.tolist()}, want 2.0 each")
        return 1
    print(f"rank {r}: all-reduce exact")
    return 0


def join(uid, device):
    try:
        tern.Comm(2, uid, 1, device)
    except tern.Error as e:
        return e.status
    return "TERN_SUCCESS"


def steal(port, where):
    s = store(port, False)
    uid = s.get(KEY)
    failed = 0
    if uid[SECRET] != bytes(32):
        print("steal: the store holds a secret")
        failed = 1
    device = tern.Device(0)
    got = join(uid, device)
    print(f"steal: joining with the store's id: {got}")
    failed |= got != "TERN_ERROR_PERMISSION"
    forged = uid[:FROM] + bytes(4) + uid[FROM + 4:]
    got = join(forged, device)
    print(f"steal: joining with a secret of zeros: {got}")
    failed |= got != "TERN_ERROR_PERMISSION"
    with open(os.path.join(where, "go"), "w"):
        pass
    return failed


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "rank":
        sys.exit(rank(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
    if len(sys.argv) == 4 and sys.argv[1] == "steal":
        sys.exit(steal(int(sys.argv[2]), sys.argv[3]))
    print("usage: trust_store.py rank R PORT DIR | steal PORT DIR",
          file=sys.stderr)
    sys.exit(2)
