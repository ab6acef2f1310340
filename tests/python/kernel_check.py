# SPDX-License-Identifier: MIT
"""The module tern on tern.ko (run by tests/vm-suite.sh in the test VM,
TERN_BACKEND=kernel): devices, buffers seen by numpy in place, a stream
copy, and an all-reduce over every device of the module, exact. Plain
Python and numpy, no pytest or torch: the VM's CPU is emulated. Prints
cmocka's summary lines, which the suite counts."""
import sys

import numpy as np

import tern

checks = []


def check(name, ok):
    checks.append((name, bool(ok)))
    print(("ok" if ok else "not ok"), name, flush=True)


check("the backend is the kernel's", tern.backend() == "kernel")
n = tern.device_count()
check("devices found", n >= 1)
devs = [tern.Device(i) for i in range(min(n, 4))]
check("a device's node is a DRM node",
      devs[0].properties["node"].startswith("/dev/"))
b = devs[0].alloc(4096)
a = np.frombuffer(b, dtype=np.int32)
a[:] = np.arange(1024, dtype=np.int32)
c = devs[0].alloc(4096)
s = devs[0].stream()
s.copy(c, b, 4096)
s.synchronize()
check("a stream copy, seen through numpy in place",
      np.array_equal(np.frombuffer(c, dtype=np.int32), np.arange(1024)))
check("DLPack to numpy at the buffer's address",
      np.from_dlpack(b).ctypes.data == a.ctypes.data)
try:
    devs[0].alloc(-1)
    check("a bad size raises tern.Error", False)
except tern.Error as e:
    check("a bad size raises tern.Error", e.status == "TERN_ERROR_INVALID_ARGUMENT")
del a
if len(devs) >= 2:
    comms = tern.init_all(devs)
    bufs = [(d.alloc(4004), d.stream()) for d in devs]
    for r, (buf, _) in enumerate(bufs):
        np.frombuffer(buf, dtype=np.float32)[:] = r + 1
    tern.group_start()
    for comm, (buf, st) in zip(comms, bufs):
        comm.all_reduce(buf, buf, 1001, "float32", "sum", st)
    tern.group_end()
    want = sum(range(1, len(devs) + 1))
    for buf, st in bufs:
        st.synchronize()
    check(f"an all-reduce over {len(devs)} devices of tern.ko, exact",
          all((np.frombuffer(buf, dtype=np.float32) == want).all()
              for buf, _ in bufs))
    for comm in comms:
        comm.destroy()
for d in devs:
    d.close()
failed = sum(1 for _, ok in checks if not ok)
print(f"[  PASSED  ] {len(checks) - failed} test(s).")
if failed:
    print(f"[  FAILED  ] {failed} test(s), listed above.")
sys.exit(1 if failed else 0)
