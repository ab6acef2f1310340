# SPDX-License-Identifier: MIT
"""DLPack capsules made by hand with ctypes, well formed or not, for
test_dlpack_capsules.py. Run as a program with a case's name, it hands
that case's capsule to tern.from_dlpack on device 0 and prints one line:
"accepted SIZE HEX" (the buffer's size and its first bytes) or "refused
TYPE: MESSAGE" ("refused TYPE (after TYPE2): ..." when it was raised
while TYPE2 was), then "deleter N", the times the capsule's deleter ran.
A crash is the process dying, which the test sees."""
import ctypes
import mmap
import sys

import tern

PAGE = mmap.PAGESIZE
PROT_NONE = 0
KDLCPU, KDLCUDA = 1, 2
KDLINT, KDLUINT, KDLFLOAT = 0, 1, 2


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
NAME = b"dltensor"
capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
capsule_new.restype = ctypes.py_object
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

# What the capsules point at, kept alive for as long as this process.
keep = []
deleter_calls = [0]


def counting_deleter(raises=None):
    def deleter(_managed):
        deleter_calls[0] += 1
        if raises:
            raise raises
    fn = DELETER(deleter)
    keep.append(fn)
    return ctypes.cast(fn, ctypes.c_void_p).value


def ints(values):
    if values is None:
        return None
    arr = (ctypes.c_int64 * max(len(values), 1))(*values)
    keep.append(arr)
    return ctypes.cast(arr, ctypes.POINTER(ctypes.c_int64))


def data_of(nbytes):
    buf = (ctypes.c_uint8 * nbytes)(*range(nbytes % 256 or 1))
    keep.append(buf)
    return ctypes.addressof(buf)


def page_before_a_hole():
    """A readable page followed by one that is not (PROT_NONE)."""
    addr = libc.mmap(None, 2 * PAGE, mmap.PROT_READ | mmap.PROT_WRITE,
                     mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise OSError(ctypes.get_errno(), "mmap")
    if libc.mprotect(addr + PAGE, PAGE, PROT_NONE):
        raise OSError(ctypes.get_errno(), "mprotect")
    return addr


def capsule(data=0, shape=(16,), ndim=None, code=KDLUINT, bits=8, lanes=1,
            strides=None, byte_offset=0, device=KDLCPU, name=NAME,
            deleter=None):
    """A capsule of a DLManagedTensor filled as told; data 0 is 16
    readable bytes 0..15, None a NULL pointer."""
    if data == 0:
        data = data_of(16)
    m = DLManagedTensor()
    m.dl_tensor.data = data
    m.dl_tensor.device = DLDevice(device, 0)
    m.dl_tensor.ndim = len(shape) if ndim is None else ndim
    m.dl_tensor.dtype = DLDataType(code, bits, lanes)
    m.dl_tensor.shape = ints(shape)
    m.dl_tensor.strides = ints(strides)
    m.dl_tensor.byte_offset = byte_offset
    m.deleter = counting_deleter() if deleter is None else deleter
    keep.append(m)
    return capsule_new(ctypes.addressof(m), name, None)


def no_memory_deleter():
    """A C deleter that raises: PyErr_NoMemory takes no argument, so the
    managed tensor's pointer is ignored, and sets MemoryError."""
    return ctypes.cast(ctypes.pythonapi.PyErr_NoMemory, ctypes.c_void_p).value


CASES = {
    "valid": lambda: capsule(),
    "valid-2d-strided": lambda: capsule(shape=(4, 4), strides=(4, 1)),
    "null-data": lambda: capsule(data=None),
    "null-shape": lambda: capsule(shape=None, ndim=1),
    "negative-ndim": lambda: capsule(ndim=-1),
    "too-many-dims": lambda: capsule(ndim=1 << 20),
    "negative-dim": lambda: capsule(shape=(-4,)),
    "size-overflows": lambda: capsule(shape=((1 << 62) + 1024, 4)),
    "bytes-overflow": lambda: capsule(shape=(1 << 61,), code=KDLFLOAT,
                                      bits=64),
    "offset-2-60": lambda: capsule(byte_offset=1 << 60),
    "offset-wraps": lambda: capsule(byte_offset=(1 << 64) - 8),
    "shape-past-data": lambda: capsule(data=page_before_a_hole(),
                                       shape=(1 << 20,)),
    "not-compact": lambda: capsule(shape=(4, 4), strides=(1, 4)),
    "negative-stride": lambda: capsule(shape=(16,), strides=(-1,)),
    "zero-bits": lambda: capsule(bits=0),
    "odd-bits": lambda: capsule(bits=12),
    "lanes": lambda: capsule(lanes=4),
    "unknown-code": lambda: capsule(code=99),
    "cuda": lambda: capsule(device=KDLCUDA),
    "zero-size": lambda: capsule(shape=(0, 4)),
    "zero-size-null-data": lambda: capsule(data=None, shape=(0,)),
    "not-dltensor": lambda: capsule(name=b"used_dltensor"),
    "deleter-raises": lambda: capsule(deleter=no_memory_deleter()),
    "deleter-raises-on-refusal": lambda: capsule(
        shape=(-4,), deleter=no_memory_deleter()),
    "python-deleter-raises-on-refusal": lambda: capsule(
        shape=(-4,), deleter=counting_deleter(ValueError("from the deleter"))),
}


def main():
    made = CASES[sys.argv[1]]()
    dev = tern.Device(0)
    try:
        buf = tern.from_dlpack(made, dev)
        print(f"accepted {buf.size} {bytes(memoryview(buf)[:16]).hex()}")
    except BaseException as e:  # noqa: B902  what it was is the answer
        after = e.__context__
        print(f"refused {type(e).__name__}"
              f"{f' (after {type(after).__name__})' if after else ''}: {e}")
    print(f"deleter {deleter_calls[0]}", flush=True)
    dev.close()


if __name__ == "__main__":
    main()
