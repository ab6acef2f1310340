# SPDX-License-Identifier: MIT
"""For test_threads.py: CYCLES times, 4 threads make CALL on a device's
objects, a megabyte of work in flight, while this one ends them (closes
the device, or destroys the stream or communicator the call uses). Each
call must return or raise tern.Error, never crash. Prints "cycles N
returned R raised E", counting calls.

    close_worker.py CALL CYCLES

CALL: synchronize (Stream.synchronize, the device closed),
event (Event.synchronize, the device closed), alloc (Device.alloc, the
device closed), collective (Comm.all_reduce, the device closed),
stream-destroy (Stream.synchronize, the stream destroyed) or
comm-destroy (Comm.all_reduce, the communicator destroyed).
"""
import sys
import threading

import tern

SIZE = 1 << 20
THREADS = 4  # more calls in flight as the end comes: more chances to crash


def cycle(index, call):
    d = tern.Device(index)
    s, b = d.stream(), d.alloc(SIZE)
    s.fill(b, 1, SIZE)  # work to wait for
    ev = d.event()
    ev.record(s)
    comm = tern.init_all([d])[0] if "collective" in call or "comm" in call \
        else None

    def all_reduce():
        comm.all_reduce(b, b, SIZE, "uint8", "sum", s)

    calls = {"synchronize": s.synchronize, "event": ev.synchronize,
             "alloc": lambda: d.alloc(SIZE), "collective": all_reduce,
             "stream-destroy": s.synchronize, "comm-destroy": all_reduce}
    ends = {"stream-destroy": s.destroy,
            "comm-destroy": comm.destroy if comm else None}
    outcome = []

    def use(started):
        started.set()  # the call follows without giving up the GIL
        try:
            calls[call]()
            outcome.append("returned")
        except tern.Error:
            outcome.append("raised")

    started = [threading.Event() for _ in range(THREADS)]
    threads = [threading.Thread(target=use, args=(e,)) for e in started]
    for t, e in zip(threads, started):
        t.start()
        e.wait()
    try:
        ends.get(call, d.close)()
    except tern.Error:
        pass  # a stream's or comm's end may report its work's error
    for t in threads:
        t.join()
    d.close()
    return outcome


def main():
    call, cycles = sys.argv[1], int(sys.argv[2])
    seen = {"returned": 0, "raised": 0}
    for i in range(cycles):
        for outcome in cycle(i % tern.device_count(), call):
            seen[outcome] += 1
    print(f"cycles {cycles} returned {seen['returned']} raised {seen['raised']}",
          flush=True)


if __name__ == "__main__":
    main()
