# SPDX-License-Identifier: MIT
"""The module tern: every call, its errors as tern.Error (never a crash),
the buffer protocol and DLPack without a copy, the collectives exact."""
import multiprocessing
import re

import numpy as np
import pytest
import torch

import tern


def status(excinfo):
    return excinfo.value.status


@pytest.fixture
def dev():
    d = tern.Device(0)
    yield d
    d.close()


@pytest.fixture(scope="module")
def devices():
    ds = [tern.Device(i) for i in range(4)]
    yield ds
    for d in ds:
        d.close()


def address(buf):
    return np.frombuffer(buf, dtype=np.uint8).ctypes.data


# ---- module, devices ----

def test_version_and_backend():
    assert re.fullmatch(r"\d+\.\d+\.\d+", tern.__version__)
    assert tern.backend() == "sim"
    assert tern.device_count() == 4


def test_constants_and_names():
    assert tern.FLOAT32 == 0 and tern.BFLOAT16 == 2 and tern.UINT64 == 8
    assert tern.SUM == 0 and tern.AVG == 4
    assert tern.dtype_size("bfloat16") == 2 and tern.dtype_size(tern.INT64) == 8
    assert tern.status_name(14) == "TERN_ERROR_PEER_FAILED"
    with pytest.raises(tern.Error) as e:
        tern.dtype_size("complex64")
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT" and e.value.code == 1


def test_device_properties(dev):
    p = dev.properties
    assert p["index"] == 0 and p["node"] == "sim:0"
    assert p["memory_bytes"] == 64 << 20 and p["fabric_id"] == 0
    used, total = dev.memory_usage()
    assert total == 64 << 20 and 0 <= used <= total
    assert repr(dev) == "<tern.Device 0>"


@pytest.mark.parametrize("index", [-1, 4, 1 << 20])
def test_bad_device_index(index):
    with pytest.raises(tern.Error) as e:
        tern.Device(index)
    assert status(e) == "TERN_ERROR_INVALID_DEVICE"


def test_device_arguments():
    with pytest.raises(TypeError):
        tern.Device("zero")
    with pytest.raises(OverflowError):
        tern.Device(1 << 40)


def test_closed_device_refuses_everything():
    d = tern.Device(1)
    b = d.alloc(64)
    s = d.stream()
    d.close()
    assert d.closed and b.freed
    for call in (lambda: d.alloc(8), lambda: d.stream(), lambda: d.properties,
                 lambda: memoryview(b), lambda: b.address,
                 lambda: s.synchronize(), lambda: tern.Device.__init__(d, 1)):
        with pytest.raises(tern.Error) as e:
            call()
        assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    b.free()  # gone with the device: nothing to do, no error
    d.close()  # twice is fine


def test_close_refused_while_a_view_lives():
    d = tern.Device(2)
    b = d.alloc(16)
    view = memoryview(b)
    with pytest.raises(BufferError):
        d.close()
    view.release()
    d.close()


# ---- buffers ----

@pytest.mark.parametrize("size", [-1, 1 << 64, "8", 1.5])
def test_alloc_bad_size(dev, size):
    with pytest.raises(tern.Error) as e:
        dev.alloc(size)
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"


def test_alloc_too_big(dev):
    with pytest.raises(tern.Error) as e:
        dev.alloc(1 << 40)
    assert status(e) == "TERN_ERROR_OUT_OF_MEMORY"


def test_buffer_not_made_directly():
    with pytest.raises(tern.Error):
        tern.Buffer()


@pytest.mark.parametrize("host", [False, True])
def test_buffer_protocol_shares_memory(dev, host):
    b = dev.alloc(4096, host=host)
    assert b.size == 4096 and b.host == host and b.device is dev
    m = memoryview(b)
    assert len(m) == 4096 and not m.readonly and m.format == "B"
    a = np.frombuffer(b, dtype=np.int32)
    a[:] = np.arange(1024, dtype=np.int32)
    assert bytes(m[4:8]) == (1).to_bytes(4, "little")
    assert address(b) == np.frombuffer(m, dtype=np.uint8).ctypes.data
    del a
    m.release()
    b.free()
    assert b.freed


def test_free_refused_while_viewed_then_freed(dev):
    b = dev.alloc(64)
    a = np.frombuffer(b, dtype=np.uint8)
    with pytest.raises(BufferError):
        b.free()
    del a
    b.free()
    b.free()  # twice is fine
    with pytest.raises(tern.Error) as e:
        memoryview(b)
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    with pytest.raises(tern.Error):
        b.address


def test_buffer_context_manager(dev):
    with dev.alloc(32) as b:
        memoryview(b)[0] = 7
    assert b.freed


# ---- DLPack ----

def test_dlpack_torch_zero_copy(dev):
    b = dev.alloc(64)
    t = torch.from_dlpack(b)
    assert t.dtype == torch.uint8 and t.shape == (64,) and t.device.type == "cpu"
    assert t.data_ptr() == address(b)
    t.view(torch.float32)[:] = 2.5
    assert np.frombuffer(b, dtype=np.float32)[3] == 2.5
    with pytest.raises(BufferError):
        b.free()
    del t
    b.free()


def test_dlpack_tensor_keeps_memory_alive(dev):
    b = dev.alloc(16)
    np.frombuffer(b, dtype=np.uint8)[:] = 9
    t = torch.from_dlpack(b)
    del b
    assert int(t.sum()) == 9 * 16


def test_dlpack_numpy_zero_copy(dev):
    b = dev.alloc(32)
    a = np.from_dlpack(b)
    assert a.dtype == np.uint8 and a.shape == (32,)
    assert a.ctypes.data == address(b)
    assert b.__dlpack_device__() == (1, 0)


def test_dlpack_unconsumed_capsule_frees(dev):
    b = dev.alloc(8)
    capsule = b.__dlpack__()
    with pytest.raises(BufferError):
        b.free()
    del capsule
    b.free()


def test_from_dlpack_copies(dev):
    src = torch.arange(100, dtype=torch.int32)
    b = tern.from_dlpack(src, dev)
    assert b.size == 400
    assert np.array_equal(np.frombuffer(b, dtype=np.int32), np.arange(100))
    assert address(b) != src.data_ptr()
    n = tern.from_dlpack(np.arange(6, dtype=np.float64).reshape(2, 3), dev)
    assert np.array_equal(np.frombuffer(n, dtype=np.float64), np.arange(6))


def test_from_dlpack_refuses(dev):
    with pytest.raises(tern.Error) as e:
        tern.from_dlpack(torch.arange(12).reshape(3, 4).t(), dev)
    assert "contiguous" in str(e.value)
    with pytest.raises(tern.Error):
        tern.from_dlpack(b"bytes", dev)
    with pytest.raises(tern.Error):
        tern.from_dlpack(torch.zeros(2), "device")


# ---- streams and events ----

def test_stream_fill_copy(dev):
    s = dev.stream()
    a, b = dev.alloc(256), dev.alloc(256)
    s.fill(a, 0x5A, 256)
    s.fill((b, 0), 0, 256)
    s.copy((b, 128), (a, 0), 64)
    s.synchronize()
    out = np.frombuffer(b, dtype=np.uint8)
    assert (out[128:192] == 0x5A).all() and (out[:128] == 0).all()
    assert (out[192:] == 0).all()
    assert s.query() is True


def test_stream_bad_arguments(dev):
    s = dev.stream()
    a = dev.alloc(64)
    with pytest.raises(tern.Error) as e:
        s.copy(a, (a, 32), 64)
    assert status(e) == "TERN_ERROR_OUT_OF_RANGE"
    with pytest.raises(tern.Error):
        s.copy(a, "a", 8)
    with pytest.raises(tern.Error):
        s.fill((a, -1), 0, 8)
    other = tern.Device(3)
    with pytest.raises(tern.Error) as e:
        s.copy(a, other.alloc(64), 8)
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    other.close()
    s.destroy()
    with pytest.raises(tern.Error):
        s.synchronize()
    with pytest.raises(tern.Error):
        tern.Stream("dev")


def test_events(dev):
    s = dev.stream()
    e1, e2 = dev.event(), tern.Event(dev)
    b = dev.alloc(1 << 16)
    e1.record(s)
    s.fill(b, 1, 1 << 16)
    e2.record(s)
    e2.synchronize()
    assert e1.query() and e2.query()
    assert e1.elapsed_ms(e2) >= 0.0
    s2 = dev.stream()
    s2.wait_event(e2)
    s2.synchronize()
    with pytest.raises(tern.Error):
        e1.record("stream")
    with pytest.raises(tern.Error):
        e1.elapsed_ms(b)


# ---- collectives ----

NP = {"float32": np.float32, "int32": np.int32, "int64": np.int64,
      "uint8": np.uint8, "float16": np.float16}


@pytest.fixture(scope="module")
def comms(devices):
    cs = tern.init_all(devices)
    yield cs
    for c in cs:
        c.destroy()


def per_rank(devices, nbytes):
    return [(d.alloc(max(nbytes, 1)), d.alloc(max(nbytes, 1)), d.stream())
            for d in devices]


@pytest.mark.parametrize("dtype", sorted(NP))
@pytest.mark.parametrize("op", ["sum", "min", "max"])
@pytest.mark.parametrize("count", [0, 1, 1001])
def test_all_reduce(devices, comms, dtype, op, count):
    t = NP[dtype]
    bufs = per_rank(devices, count * np.dtype(t).itemsize)
    inputs = []
    for r, (s, _, _) in enumerate(bufs):
        x = ((np.arange(count) * 3 + r * 7) % 5).astype(t)
        np.frombuffer(s, dtype=t, count=count)[:] = x
        inputs.append(x)
    tern.group_start()
    for c, (s, rv, st) in zip(comms, bufs):
        c.all_reduce(s, rv, count, dtype, op, st)
    tern.group_end()
    want = {"sum": np.sum, "min": np.min, "max": np.max}[op](
        np.stack(inputs) if count else np.zeros((4, 0), t), axis=0).astype(t)
    for _, rv, st in bufs:
        st.synchronize()
        assert np.array_equal(np.frombuffer(rv, dtype=t, count=count), want)


def test_every_collective(devices, comms):
    n, count = 4, 37
    f4 = np.float32
    bufs = per_rank(devices, n * count * 4)
    for r, (s, _, _) in enumerate(bufs):
        np.frombuffer(s, dtype=f4)[:] = np.arange(n * count) + 1000 * r
    send = [np.frombuffer(s, dtype=f4).copy() for s, _, _ in bufs]

    def run(call):
        tern.group_start()
        for r, (c, (s, rv, st)) in enumerate(zip(comms, bufs)):
            call(r, c, s, rv, st)
        tern.group_end()
        for _, rv, st in bufs:
            st.synchronize()
        return [np.frombuffer(rv, dtype=f4) for _, rv, _ in bufs]

    out = run(lambda r, c, s, rv, st: c.all_gather(s, rv, count, "float32", st))
    for o in out:
        assert np.array_equal(o, np.concatenate([x[:count] for x in send]))
    out = run(lambda r, c, s, rv, st: c.reduce_scatter(s, rv, count, "float32", "sum", st))
    for r, o in enumerate(out):
        assert np.array_equal(o[:count], sum(send)[r * count:(r + 1) * count])
    out = run(lambda r, c, s, rv, st: c.broadcast(s, rv, count, "float32", 2, st))
    for o in out:
        assert np.array_equal(o[:count], send[2][:count])
    out = run(lambda r, c, s, rv, st: c.reduce(s, rv, count, "float32", "max", 1, st))
    assert np.array_equal(out[1][:count], send[3][:count])
    out = run(lambda r, c, s, rv, st: c.all_to_all(s, rv, count, "float32", st))
    for r, o in enumerate(out):
        want = np.concatenate([send[q][r * count:(r + 1) * count] for q in range(n)])
        assert np.array_equal(o, want)

    def ring(r, c, s, rv, st):
        c.send(s, count, "float32", (r + 1) % n, st)
        c.recv(rv, count, "float32", (r - 1) % n, st)
    out = run(ring)
    for r, o in enumerate(out):
        assert np.array_equal(o[:count], send[(r - 1) % n][:count])


def test_collective_bad_arguments(devices, comms):
    c, d = comms[0], devices[0]
    s, rv, st = d.alloc(64), d.alloc(64), d.stream()
    bad = [
        lambda: c.all_reduce(s, rv, 4, "complex", "sum", st),
        lambda: c.all_reduce(s, rv, 4, "float32", "mean", st),
        lambda: c.all_reduce(s, rv, 4, 99, "sum", st),
        lambda: c.all_reduce(s, rv, -4, "float32", "sum", st),
        lambda: c.all_reduce(s, rv, 1 << 64, "float32", "sum", st),
        lambda: c.all_reduce("s", rv, 4, "float32", "sum", st),
        lambda: c.all_reduce(s, rv, 4, "float32", "sum", "stream"),
        lambda: c.broadcast(s, rv, 4, "float32", 4, st),
        lambda: c.reduce(s, rv, 4, "float32", "sum", -1, st),
        lambda: c.send(s, 4, "float32", 9, st),
    ]
    for call in bad:
        with pytest.raises(tern.Error) as e:
            call()
        assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    with pytest.raises(tern.Error) as e:
        c.all_reduce(s, rv, 1000, "float32", "sum", st)
    assert status(e) == "TERN_ERROR_OUT_OF_RANGE"
    assert c.async_error() is None
    with pytest.raises(TypeError):
        c.all_reduce(s, rv, 4)


def test_comm_arguments(devices):
    with pytest.raises(tern.Error):
        tern.Comm(2, b"short", 0, devices[0])
    with pytest.raises(tern.Error):
        tern.Comm(2, tern.unique_id(), 0, "device")
    with pytest.raises(tern.Error) as e:
        tern.Comm(2, tern.unique_id(), 5, devices[0])
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    with pytest.raises(tern.Error):
        tern.init_all([])
    with pytest.raises(tern.Error):
        tern.init_all([devices[0], "x"])


def test_comm_destroyed_refuses(devices):
    cs = tern.init_all(devices[:2])
    assert [c.rank for c in cs] == [0, 1] and cs[0].size == 2
    b, st = devices[0].alloc(16), devices[0].stream()
    for c in cs:
        c.destroy()
    with pytest.raises(tern.Error):
        cs[0].all_reduce(b, b, 4, "float32", "sum", st)
    with pytest.raises(tern.Error):
        cs[0].async_error()
    cs[0].destroy()  # twice is fine


def _rank(rank, uid, queue):
    d = tern.Device(rank)
    c = tern.Comm(2, uid, rank, d)
    s, rv, st = d.alloc(4000), d.alloc(4000), d.stream()
    np.frombuffer(s, dtype=np.int32)[:] = rank + 1
    c.all_reduce(s, rv, 1000, tern.INT32, tern.SUM, st)
    st.synchronize()
    queue.put((rank, int(np.frombuffer(rv, dtype=np.int32).sum())))
    c.destroy()


def test_comm_across_processes():
    uid = tern.unique_id()
    assert isinstance(uid, bytes) and len(uid) == 128
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    ps = [ctx.Process(target=_rank, args=(r, uid, q)) for r in range(2)]
    for p in ps:
        p.start()
    got = dict(q.get(timeout=60) for _ in ps)
    for p in ps:
        p.join(60)
        assert p.exitcode == 0
    assert got == {0: 3000, 1: 3000}
