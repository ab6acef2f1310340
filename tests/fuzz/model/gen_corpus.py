#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus and dictionary of the device model fuzzer.

Each seed is a setup header (the layout at the top of fuzz_model.c) and a
packet stream: every opcode, every REDUCE dtype and op, dividing SUMs,
accesses just inside and just outside buffers and DRM_TERN_VA_LIMIT, peer
memory over links up and down, overlapping COPY and REDUCE, streams long
enough to yield, semaphores that stall, SEM_WAIT_ABORTs called off before
and during the wait, and the malformed streams of the table the model's
unit test and the uapi test share (tests/common/bad_packets.c), which it
compiles and runs (bad_seeds.c, with $CC).

The opcodes, packet flags and address limit come from the uapi header.
--check fails when the header defines an opcode this script has no packet
of, or that no valid seed runs, an opcode the table counts as no packet's,
or an element type or operation of REDUCE this script does not know.

    gen_corpus.py             rewrite tests/fuzz/model/corpus/ and the .dict
    gen_corpus.py --check     exit 1 if they differ from what it would write,
                              or the header has what the seeds miss
    --header PATH             read this header instead of uapi/drm/tern_accel.h
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
CORPUS = os.path.join(HERE, "corpus")
DICT = os.path.join(HERE, "fuzz_model.dict")
HEADER = os.path.join(TOP, "uapi", "drm", "tern_accel.h")

# The packets this script builds: opcode name in the header, the name in
# the dictionary, the length in 8-byte units.
PACKETS = {
    "NOP": ("nop", 1), "COPY": ("copy", 4), "FILL": ("fill", 4),
    "TIMESTAMP": ("timestamp", 2), "SEM_SIGNAL": ("sem_signal", 3),
    "SEM_WAIT": ("sem_wait", 3), "SEM_WAIT_ABORT": ("sem_wait_abort", 4),
    "REDUCE": ("reduce", 6), "DMA_TILE": ("dma_tile", 6),
    "MATMUL": ("matmul", 7), "TENSOR_COPY": ("tensor_copy", 5),
    "TENSOR_TENSOR": ("tensor_tensor", 8),
    "TENSOR_SCALAR": ("tensor_scalar", 7),
    "TENSOR_REDUCE": ("tensor_reduce", 6), "ACTIVATE": ("activate", 7),
}
# The element types, in the header's order; REDUCE takes the first
# REDUCE_DTYPES, the compute packets all but the 64-bit integers.
DTYPES = ["f32", "f16", "bf16", "i32", "u32", "i8", "u8", "i64", "u64",
          "f8e4m3", "f8e5m2"]
DTYPE_SIZE = [4, 2, 2, 4, 4, 1, 1, 8, 8, 1, 1]
REDUCE_DTYPES = 9
REDOPS = ["sum", "prod", "min", "max"]
# model/tern_model.h
MODEL_BUDGET = 4 << 20


def c_int(expr):
    """A C integer constant of literals, shifts, | and +, or None."""
    expr = re.sub(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr.strip())
    if not expr or not re.fullmatch(r"[\s0-9a-fA-FxX()<>|+]*", expr):
        return None
    return eval(expr, {"__builtins__": {}})  # digits and operators only


class Uapi:
    """What the seeds take from the uapi header, read from it."""

    def __init__(self, path):
        self.path = os.path.relpath(path, TOP)
        if self.path.startswith(".."):
            self.path = path
        with open(path, encoding="utf-8") as f:
            text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
        self.text = text
        self.opcodes = self.enum(text, "drm_tern_opcode", "DRM_TERN_OP_")
        self.dtypes = self.enum(text, "drm_tern_dtype", "DRM_TERN_DTYPE_")
        self.redops = self.enum(text, "drm_tern_redop", "DRM_TERN_REDOP_")
        self.defines = {}
        for name, value in re.findall(r"^#define\s+DRM_TERN_(\w+)\s+(.+)$",
                                      text, re.M):
            if c_int(value) is not None:
                self.defines[name] = c_int(value)

    @staticmethod
    def enum(text, name, prefix):
        body = re.search(r"enum\s+%s\s*\{(.*?)\};" % name, text, re.S)
        if not body:
            sys.exit(f"gen_corpus: no enum {name} in the uapi header")
        return {n: c_int(v) for n, v in
                re.findall(r"\b%s(\w+)\s*=\s*([^,}]+)" % prefix, body.group(1))}


def load(path):
    """The header's opcodes, flags and limit, as this script's constants."""
    global U, OP_NOP, OP_COPY, OP_FILL, OP_TIMESTAMP, OP_SEM_SIGNAL
    global OP_SEM_WAIT, OP_SEM_WAIT_ABORT, OP_REDUCE, SEM_SIGNAL_ADD
    global SEM_WAIT_EQ, REDUCE_DIVIDE, SEM_ABORT_CANCEL, VA_LIMIT, T
    global OP, ENGINE, SPACE, ALU, ACT, FLAG
    U = Uapi(path)

    def need(table, name, prefix=""):
        if name not in table:
            sys.exit(f"gen_corpus: {U.path} has no DRM_TERN_{prefix}{name}, "
                     "which gen_corpus.py builds packets with")
        return table[name]

    op = {name: need(U.opcodes, name, "OP_") for name in PACKETS}
    OP_NOP, OP_COPY, OP_FILL, OP_TIMESTAMP = (op["NOP"], op["COPY"], op["FILL"],
                                              op["TIMESTAMP"])
    OP_SEM_SIGNAL, OP_SEM_WAIT = op["SEM_SIGNAL"], op["SEM_WAIT"]
    OP_SEM_WAIT_ABORT, OP_REDUCE = op["SEM_WAIT_ABORT"], op["REDUCE"]
    SEM_SIGNAL_ADD = need(U.defines, "SEM_SIGNAL_ADD")
    SEM_WAIT_EQ = need(U.defines, "SEM_WAIT_EQ")
    REDUCE_DIVIDE = need(U.defines, "REDUCE_DIVIDE")
    SEM_ABORT_CANCEL = need(U.defines, "SEM_ABORT_CANCEL")
    VA_LIMIT = need(U.defines, "VA_LIMIT")
    T = VA_LIMIT - 4096
    OP = op
    ENGINE = U.enum(U.text, "drm_tern_engine_type", "DRM_TERN_ENGINE_")
    SPACE = U.enum(U.text, "drm_tern_space", "DRM_TERN_SPACE_")
    ALU = U.enum(U.text, "drm_tern_alu_op", "DRM_TERN_ALU_")
    ACT = U.enum(U.text, "drm_tern_activation", "DRM_TERN_ACT_")
    FLAG = {name: need(U.defines, name) for name in (
        "DMA_TILE_TO_MEMORY", "MATMUL_ACCUMULATE", "TENSOR_COPY_TRANSPOSE",
        "SCALAR_OPERAND0_COLUMN", "SCALAR_OPERAND1_COLUMN",
        "ACTIVATE_SCALE_COLUMN", "ACTIVATE_BIAS_COLUMN", "ACTIVATE_SUM")}


# fuzz_model.c: header layout and fuzz_topologies[]
MAX_BUFFERS = 6
HEADER_BYTES = 16 + 16 * MAX_BUFFERS
BUFFER_BYTES = 64 << 10
TOPOLOGY = {
    "nofabric": 0, "ring": 1, "torus2x2": 2, "torus2x3": 3, "torus1x4": 4,
    "torus3x3": 5, "full": 6, "none": 7, "line4": 8, "islands4": 9,
    "auto": 10,
}

# Buffers of the local seeds: A and B adjacent in VA, C guarded, D and E
# 64 KiB for streams that yield, T (load()) ending at DRM_TERN_VA_LIMIT, O
# of a size that is no multiple of 8.
A, B, C, D, E = 0x100000000, 0x100001000, 0x200000000, 0x300000000, 0x310000000
O = 0x400000000
ODD = [(A, 4096, 0, False), (O, 4092, 0, True)]
# Peer seeds: device 0 runs; P1 is device 1's memory, P2 device 2's.
P1, P2 = 0x500000000, 0x600000000
PEERS = [(A, 4096, 0, False), (B, 4096, 0, False), (P1, 4096, 1, True),
         (P2, 4096, 2, False)]
PEERS_LARGE = [(P1, BUFFER_BYTES, 1, False), (P2, BUFFER_BYTES, 2, True)]


def local_buffers():
    """The buffers of the local seeds (T needs the header's limit)."""
    return [(A, 4096, 0, False), (B, 4096, 0, False), (C, 4096, 0, True),
            (D, BUFFER_BYTES, 0, False), (E, BUFFER_BYTES, 0, True),
            (T, 4096, 0, False)]


def header(buffers, topology="nofabric", devices=1, device=0, releases=0,
           links_down=0, abort=0, engine=0, cores=0, core=0, no_onchip=False):
    """The setup header: devices is the count where the topology leaves it;
    abort is what a release stores in a SEM_WAIT_ABORT's abort word (0: the
    release stores the awaited value in its semaphore); engine is the type
    of the engine that runs the stream, on core @core of a chip of @cores
    (fuzz_compute.h), whose on-chip memory cannot be had with no_onchip."""
    assert 1 <= len(buffers) <= MAX_BUFFERS and 0 <= abort <= 2
    chip = cores | core << 2 | (0x80 if no_onchip else 0)
    h = struct.pack("<BBBBBBBBQ", TOPOLOGY[topology], devices - 1, device,
                    len(buffers) - 1, releases, abort, engine, chip,
                    links_down)
    for va, size, owner, guarded in buffers:
        assert va % 8 == 0 and 1 <= size <= BUFFER_BYTES
        h += struct.pack("<QIBB2x", va, size - 1, owner, int(guarded))
    return h + bytes(16 * (MAX_BUFFERS - len(buffers)))


def packet_header(opcode, length, flags=0):
    return struct.pack("<HHI", opcode, length, flags)


def nop(length=1):
    return packet_header(OP_NOP, length) + bytes(8 * (length - 1))


def copy(src, dst, count, flags=0):
    return packet_header(OP_COPY, 4, flags) + struct.pack("<QQQ", src, dst, count)


def fill(dst, count, pattern, pad=0):
    return packet_header(OP_FILL, 4) + struct.pack("<QQII", dst, count, pattern, pad)


def timestamp(dst):
    return packet_header(OP_TIMESTAMP, 2) + struct.pack("<Q", dst)


def signal(addr, value, add=False, flags=None):
    flags = (SEM_SIGNAL_ADD if add else 0) if flags is None else flags
    return packet_header(OP_SEM_SIGNAL, 3, flags) + struct.pack("<QQ", addr, value)


def wait(addr, value, eq=False, flags=None):
    flags = (SEM_WAIT_EQ if eq else 0) if flags is None else flags
    return packet_header(OP_SEM_WAIT, 3, flags) + struct.pack("<QQ", addr, value)


def wait_abort(addr, value, abort, eq=False, flags=None):
    flags = (SEM_WAIT_EQ if eq else 0) if flags is None else flags
    return packet_header(OP_SEM_WAIT_ABORT, 4, flags) + struct.pack(
        "<QQQ", addr, value, abort)


def reduce(src0, src1, dst, count, dtype, op, pad=0, flags=0):
    return packet_header(OP_REDUCE, 6, flags) + struct.pack(
        "<QQQQHHI", src0, src1, dst, count, dtype, op, pad)


def reduce_divide(src0, src1, dst, count, dtype, divisor):
    return reduce(src0, src1, dst, count, dtype, 0, pad=divisor,
                  flags=REDUCE_DIVIDE)


# fuzz_compute.c: a partition's SBUF and PSUM
SBUF_BYTES, PSUM_BYTES = 2048, 4096


def tile(space, dtype, offset, partitions, elements, partition=0):
    return struct.pack("<IHHIBBH", offset, partition, partitions, elements,
                       SPACE[space], dtype, 0)


def dma_tile(va, pstride, estride, dtype, t, core=0, to_memory=False):
    return packet_header(OP["DMA_TILE"], 6,
                         FLAG["DMA_TILE_TO_MEMORY"] if to_memory else 0) + \
        struct.pack("<QQIHBB", va, pstride, estride, core, dtype, 0) + t


def matmul(st, mv, res, accumulate=False):
    return packet_header(OP["MATMUL"], 7, FLAG["MATMUL_ACCUMULATE"]
                         if accumulate else 0) + st + mv + res


def tensor_copy(src, dst, transpose=False):
    return packet_header(OP["TENSOR_COPY"], 5, FLAG["TENSOR_COPY_TRANSPOSE"]
                         if transpose else 0) + src + dst


def tensor_tensor(in0, in1, out, op):
    return packet_header(OP["TENSOR_TENSOR"], 8) + in0 + in1 + out + \
        struct.pack("<II", ALU[op], 0)


def tensor_scalar(src, out, op0, operand0, op1="NONE", operand1=0, flags=0):
    return packet_header(OP["TENSOR_SCALAR"], 7, flags) + src + out + \
        struct.pack("<HHIII", ALU[op0], ALU[op1], operand0, operand1, 0)


def tensor_reduce(src, out, op):
    return packet_header(OP["TENSOR_REDUCE"], 6) + src + out + \
        struct.pack("<II", ALU[op], 0)


def activate(src, out, function, scale=0x3F800000, bias=0, total=0,
             flags=0):
    return packet_header(OP["ACTIVATE"], 7, flags) + src + out + \
        struct.pack("<HHIII", ACT[function], 0, scale, bias, total)


def compute_seeds(add, bufs):
    """Seeds of the chip's packets, each on the engine that runs it."""
    f32, bf16, u8, e4m3 = 0, 2, 6, 9

    def on(engine, **kw):
        return header(bufs, engine=ENGINE[engine], cores=kw.pop("cores", 1),
                      **kw)

    def sb(dtype, offset, partitions, elements):
        return tile("SBUF", dtype, offset, partitions, elements)

    def ps(offset, partitions, elements):
        return tile("PSUM", f32, offset, partitions, elements)

    # DMA: a grid in, rows, columns (a transposing load), casts, back out
    add("valid-dma-tile-rows", on("DMA"),
        dma_tile(A, 64, 4, f32, sb(f32, 0, 16, 16)),
        dma_tile(B, 64, 4, f32, sb(f32, 0, 16, 16), to_memory=True))
    add("valid-dma-tile-columns", on("DMA"),
        dma_tile(A, 2, 64, 1, sb(bf16, 64, 32, 20)),
        dma_tile(C, 40, 2, bf16, sb(bf16, 64, 32, 20), to_memory=True))
    add("valid-dma-tile-cast", on("DMA", cores=2),
        dma_tile(A, 16, 4, f32, sb(e4m3, 8, 128, 4), core=1),
        dma_tile(B, 8, 2, bf16, sb(e4m3, 8, 128, 4), core=1, to_memory=True))
    add("fault-dma-tile-past-buffer", on("DMA"),
        dma_tile(A + 4000, 64, 4, f32, sb(f32, 0, 4, 16)))
    add("nomem-dma-tile", on("DMA", no_onchip=True),
        dma_tile(A, 64, 4, f32, sb(f32, 0, 16, 16)))
    # the tensor engine, overwriting then accumulating
    add("valid-matmul", on("TENSOR"),
        matmul(sb(bf16, 0, 16, 8), sb(f32, 64, 16, 24), ps(0, 8, 24)),
        matmul(sb(e4m3, 0, 16, 8), sb(f32, 64, 16, 24), ps(0, 8, 24),
               accumulate=True))
    add("valid-matmul-full-bank", on("TENSOR", cores=2, core=1),
        matmul(sb(bf16, 0, 4, 128), sb(e4m3, 256, 4, 512),
               ps(2048, 128, 512)))
    add("nomem-matmul", on("TENSOR", no_onchip=True),
        matmul(sb(f32, 0, 1, 1), sb(f32, 64, 1, 1), ps(0, 1, 1)))
    # the vector and scalar engines
    add("valid-tensor-copy", on("VECTOR"),
        tensor_copy(ps(0, 32, 16), sb(bf16, 128, 32, 16)),
        tensor_copy(sb(f32, 0, 8, 8), sb(f32, 0, 8, 8)),
        tensor_copy(sb(bf16, 128, 32, 16), sb(e4m3, 512, 16, 32),
                    transpose=True))
    add("valid-tensor-copy-scalar", on("SCALAR"),
        tensor_copy(sb(f32, 0, 128, 32), sb(u8, 512, 128, 32)))
    add("valid-tensor-tensor", on("VECTOR"),
        *[tensor_tensor(sb(f32, 0, 64, 16), sb(bf16, 256, 64, 16),
                        sb(f32, 0, 64, 16), op)
          for op in ("ADD", "SUBTRACT", "MULTIPLY", "MAX", "MIN")])
    add("valid-tensor-scalar", on("SCALAR"),
        tensor_scalar(sb(f32, 0, 32, 16), sb(bf16, 512, 32, 16), "MULTIPLY",
                      0x3FC00000, "ADD", 1024,
                      flags=FLAG["SCALAR_OPERAND1_COLUMN"]))
    add("valid-tensor-reduce", on("VECTOR"),
        tensor_reduce(sb(f32, 0, 128, 64), sb(f32, 1024, 128, 1), "ADD"),
        tensor_reduce(sb(f32, 0, 128, 64), sb(bf16, 1040, 128, 1), "MAX"))
    for function in sorted(ACT):
        add(f"valid-activate-{function.lower()}", on("SCALAR"),
            activate(sb(f32, 0, 16, 32), sb(bf16, 512, 16, 32), function,
                     bias=1024, total=1536,
                     flags=FLAG["ACTIVATE_BIAS_COLUMN"] |
                     FLAG["ACTIVATE_SUM"]))
    # a long packet that yields: a matmul of more than one budget
    add("yield-matmul", on("TENSOR"),
        matmul(sb(f32, 0, 128, 64), sb(f32, 512, 128, 32), ps(0, 64, 32)))
    # packets of the chip on engines that do not run them
    add("invalid-matmul-on-vector", on("VECTOR"),
        matmul(sb(f32, 0, 1, 1), sb(f32, 64, 1, 1), ps(0, 1, 1)))
    add("invalid-dma-tile-no-core", on("DMA", cores=0),
        dma_tile(A, 64, 4, f32, sb(f32, 0, 16, 16)))
    add("invalid-copy-on-dma", on("DMA"), tensor_copy(ps(0, 1, 1),
                                                      sb(f32, 0, 1, 1)))


def copies_leaving(left):
    """COPYs from D to E that leave @left bytes of one call's budget."""
    packet_cost = 64                  # TERN_MODEL_PACKET_COST
    whole = (MODEL_BUDGET - left) // (BUFFER_BYTES + packet_cost)
    rest = MODEL_BUDGET - left - whole * (BUFFER_BYTES + packet_cost) - packet_cost
    assert 0 < rest <= BUFFER_BYTES
    return [copy(D, E, BUFFER_BYTES)] * whole + [copy(D, E, rest)]


def seeds(bad):
    """(name, bytes) of every seed, in a fixed order; @bad, the table's
    malformed streams (bad_streams())."""
    out = []
    bufs = local_buffers()

    def add(name, head, *packets):
        out.append((name, head + b"".join(packets)))

    local = header(bufs)
    # every opcode, valid
    add("valid-nop", local, nop(1), nop(3))
    add("valid-copy-whole-buffer", local, copy(A, B, 4096))
    add("valid-copy-overlap-up", local, copy(A, A + 8, 1000))
    add("valid-copy-overlap-down", local, copy(A + 8, A, 1000))
    add("valid-copy-zero-unmapped", local, copy(0, 0x10, 0))
    add("valid-fill-byte", local, fill(A + 1, 4095, 0x5A5A5A5A))
    add("valid-fill-pattern", local, fill(B + 3, 1001, 0x01020304))
    add("valid-fill-zero-unmapped", local, fill(0x20, 0, 0xFFFFFFFF))
    add("valid-timestamp", local, timestamp(A + 4088))
    add("valid-sem-signal", local, signal(A, 7), signal(A, 5, add=True),
        signal(A + 8, 1 << 63, add=True), signal(A + 8, 1 << 63, add=True))
    add("valid-sem-wait", local, signal(A, 3), wait(A, 2), wait(A, 3, eq=True))
    add("valid-every-opcode", local, nop(2), copy(C, B + 16, 64),
        fill(C + 5, 100, 0xDEADBEEF), timestamp(B), signal(B + 8, 1),
        wait(B + 8, 1, eq=True), reduce(A, B + 64, C + 256, 16, 0, 0))
    for dt, name in enumerate(DTYPES[:REDUCE_DTYPES]):
        size = DTYPE_SIZE[dt]
        for op, opname in enumerate(REDOPS):
            add(f"valid-reduce-{name}-{opname}", local,
                reduce(A, A + 2048, B + size, 2048 // size - 1, dt, op))
    # SUMs divided: every dtype, divisors exact and not in float32
    for dt, name in enumerate(DTYPES[:REDUCE_DTYPES]):
        size = DTYPE_SIZE[dt]
        add(f"valid-reduce-divide-{name}", local,
            reduce_divide(A, A + 2048, B + size, 2048 // size - 1, dt, 3))
    add("valid-reduce-divide-one", local, reduce_divide(A, B, A, 1024, 0, 1))
    add("valid-reduce-divide-big", local,
        reduce_divide(A, B, C, 1024, 0, (1 << 24) + 1),
        reduce_divide(A, B, B, 512, 8, 0xFFFFFFFF),
        reduce_divide(C, C, C, 1024, 5, 0x80000000))
    # REDUCE operands that may coincide, and one that may not
    add("valid-reduce-dst-is-src0", local, reduce(A, B, A, 1024, 0, 0))
    add("valid-reduce-dst-is-src1", local, reduce(A, B, B, 512, 7, 1))
    add("valid-reduce-all-same", local, reduce(C, C, C, 4096, 5, 3))
    add("valid-reduce-srcs-overlap", local, reduce(A, A + 8, B, 500, 3, 2))

    # boundaries: just inside and just outside buffers
    add("edge-copy-last-byte", local, copy(A + 4095, B + 4095, 1))
    add("edge-copy-across-adjacent", local, copy(A + 4095, D, 2))
    add("edge-copy-before-start", local, copy(A - 1, D, 1))
    add("edge-copy-past-end", local, copy(D, B + 1, 4096))
    add("edge-fill-past-end", local, fill(C + 4096, 1, 0))
    add("edge-fill-whole", local, fill(C, 4096, 0x11223344))
    add("edge-reduce-past-end", local, reduce(A, B, C + 8, 512, 7, 0))
    add("edge-reduce-last-element", local, reduce(A + 4094, B + 4094, C + 4094, 1, 1, 0))
    add("edge-va-limit-inside", local, copy(T + 4095, A, 1),
        fill(VA_LIMIT - 4096, 4096, 1), timestamp(VA_LIMIT - 8))
    add("edge-va-limit-outside", local, copy(T, VA_LIMIT - 1, 2))
    add("edge-va-limit-slot", local, timestamp(VA_LIMIT))
    add("edge-va-overflow", local, fill((1 << 64) - 8, 16, 0))
    odd = header(ODD)
    add("edge-slot-straddles-end", odd, timestamp(O + 4088))
    add("edge-slot-last-whole", odd, signal(O + 4080, 9), wait(O + 4080, 9))
    add("edge-copy-odd-size", odd, copy(A, O, 4092), copy(O + 1, A, 4092))
    add("edge-fault-stops-stream", local, fill(A, 8, 1), copy(A, 0x10, 8),
        fill(B, 8, 2))

    # semaphores: stalls that stay, and ones the harness releases
    add("sem-stall", local, signal(A, 0), wait(A, 1), fill(B, 8, 1))
    add("sem-stall-eq", local, signal(A, 5), wait(A, 4, eq=True))
    add("sem-release-once", header(bufs, releases=1), signal(A, 0),
        wait(A, 1), fill(B, 8, 1))
    add("sem-release-twice", header(bufs, releases=2), signal(A, 0),
        wait(A, 7, eq=True), signal(A, 1, add=True), wait(A, 9, eq=True),
        wait(A, 10), timestamp(A + 8))
    add("sem-wait-unmapped", local, wait(0x1000, 1))
    # SEM_WAIT_ABORT: abort word clear, set before, set while stalled
    add("valid-sem-wait-abort", local, signal(A + 16, 0), signal(A, 3),
        wait_abort(A, 2, A + 16), wait_abort(A, 3, A + 16, eq=True),
        fill(B, 8, 1))
    add("sem-abort-set-before-cancel", local, signal(A + 16, SEM_ABORT_CANCEL),
        signal(A, 5), wait_abort(A, 1, A + 16), fill(B, 8, 1))
    add("sem-abort-set-before-peer", local, signal(A + 16, 1 << 32),
        signal(A, 5), wait_abort(A, 1, A + 16), fill(B, 8, 1))
    add("sem-abort-stall", local, signal(B + 8, 0), signal(A, 0),
        wait_abort(A, 1, B + 8), fill(B, 8, 1))
    add("sem-abort-release-semaphore", header(bufs, releases=1),
        signal(B + 8, 0), signal(A, 0), wait_abort(A, 1, B + 8, eq=True),
        fill(B, 8, 1))
    add("sem-abort-release-cancel", header(bufs, releases=1, abort=1),
        signal(B + 8, 0), signal(A, 0), wait_abort(A, 1, B + 8),
        fill(B, 8, 1))
    add("sem-abort-release-peer", header(bufs, releases=2, abort=2),
        signal(A, 0), wait(A, 1), signal(B + 8, 0),
        wait_abort(A, 2, B + 8), fill(B, 8, 1))
    add("sem-abort-same-word", header(bufs, releases=1), signal(A, 0),
        wait_abort(A, 0, A), wait_abort(A, 5, A), fill(B, 8, 1))
    add("sem-abort-unmapped-word", local, signal(A, 5),
        wait_abort(A, 1, 0x1000))
    add("sem-abort-unmapped-sem", local, signal(A + 16, 3),
        wait_abort(0x1000, 1, A + 16))

    # streams that yield: the budget is shared by the packets of a call
    big = BUFFER_BYTES
    add("yield-copies", local, *[copy(D, E, big)] * 70)
    # an overlapping COPY that the yield splits, each way
    for shift in (1, 8, -1, -24):
        way = "up" if shift > 0 else "down"
        src, dst = (D, D + shift) if shift > 0 else (E - shift, E)
        add(f"yield-copy-overlap-{way}-{abs(shift)}", local,
            *[copy(D, E, big)] * 63, copy(src, dst, big - abs(shift)))
    add("yield-fills", local, *[fill(D, big, 0x0F1E2D3C)] * 66)
    # a REDUCE met with a budget of a few bytes, not all whole elements
    for left, count, dt, dst in [(100, 64, 8, D), (100, 64, 0, E),
                                 (67, 64, 1, D), (67, 300, 5, E),
                                 (64, 64, 7, D)]:
        add(f"yield-reduce-{DTYPES[dt]}-{left}", local, *copies_leaving(left),
            reduce(D, E, dst, count, dt, 0))
    add("yield-reduce-divide", local, *copies_leaving(100),
        reduce_divide(D, E, D, 64, 3, 3))

    # peers: ring of 4 run by device 0, P1 one hop, P2 two
    ring = header(PEERS, "ring", devices=4)
    add("peer-copy-read", ring, copy(P1, A, 4096))
    add("peer-copy-write", ring, copy(A, P2, 4096))
    add("peer-copy-peer-to-peer", ring, copy(P1, P2, 100), copy(P2, P1 + 1, 99))
    add("peer-fill", ring, fill(P2 + 1, 4000, 0xA0B0C0D0))
    add("peer-timestamp", ring, timestamp(P1 + 8))
    add("peer-sem", ring, signal(P2, 1), signal(P2, 2, add=True), wait(P2, 3))
    add("peer-sem-release", header(PEERS, "ring", devices=4, releases=1),
        signal(P1, 0), wait(P1, 1))
    add("peer-reduce", ring, reduce(P1, P2, A, 1024, 0, 0))
    add("peer-reduce-dst", ring, reduce(A, B, P2, 256, 7, 3))
    add("peer-reduce-divide", ring, reduce_divide(P1, P2, A, 1024, 1, 7))
    add("peer-sem-abort", ring, signal(P2 + 8, 0), signal(P1, 1),
        wait_abort(P1, 1, P2 + 8))
    add("peer-sem-abort-release", header(PEERS, "ring", devices=4,
                                         releases=1, abort=2),
        signal(P2 + 8, 0), signal(P1, 0), wait_abort(P1, 1, P2 + 8))
    # link 0 joins devices 0 and 1: device 1 is then three hops away
    add("peer-link-down-reroute", header(PEERS, "ring", devices=4, links_down=1),
        copy(P1, A, 64), copy(A, P1, 64))
    add("peer-no-route", header(PEERS, "ring", devices=4, links_down=0b1001),
        copy(B, A, 8), copy(P1, A, 64))
    add("peer-no-fabric", header(PEERS, devices=4), copy(A, B, 8),
        copy(P1, A, 8))
    add("peer-runner-is-owner", header(PEERS, "ring", devices=4, device=1),
        copy(P1, A, 128), copy(P2, P1, 128))
    add("peer-ring-of-two", header(PEERS[:3], "ring", devices=2),
        copy(P1, A, 256))
    add("peer-torus2x2", header(PEERS, "torus2x2", device=3), copy(P1, P2, 512))
    add("peer-torus2x3-down", header(PEERS, "torus2x3", links_down=0b101),
        copy(P2, A, 512), fill(P1, 8, 3))
    add("peer-torus1x4", header(PEERS, "torus1x4"), copy(P2, A, 16))
    add("peer-torus3x3", header(PEERS, "torus3x3", device=8), copy(P1, P2, 16))
    add("peer-full", header(PEERS, "full", devices=5, device=4),
        reduce(P1, P2, A, 64, 2, 2))
    add("peer-none", header(PEERS, "none", devices=3), copy(P1, A, 8))
    add("peer-line", header(PEERS, "line4", device=3), copy(P1, A, 8))
    add("peer-islands", header(PEERS, "islands4", links_down=1),
        copy(P1, A, 8), copy(P2, A, 8))
    add("peer-auto", header(PEERS, "auto", devices=4, device=2),
        copy(A, P1, 64))
    add("peer-yield", header(PEERS_LARGE, "ring", devices=4),
        *[copy(P1, P2, BUFFER_BYTES)] * 65)

    # streams whose framing the harness or validation rejects
    add("invalid-empty", local)
    add("invalid-short-header", local[:9])
    add("invalid-size-not-8", local, nop(1), b"\x01\x00\x01\x00")
    compute_seeds(add, bufs)

    # the malformed streams of the shared table, each of its kinds
    for name, _, stream in bad:
        add(f"invalid-{name}", local, stream)
    return out


def dictionary():
    """Packet headers of every opcode and the addresses the seeds use."""
    lines = []

    def entry(name, data):
        lines.append(f'{name}="' + "".join(f"\\x{b:02x}" for b in data) + '"')

    for opcode, (name, length) in PACKETS.items():
        entry(f"hdr_{name}", packet_header(U.opcodes[opcode], length))
    entry("hdr_sem_signal_add", packet_header(OP_SEM_SIGNAL, 3, SEM_SIGNAL_ADD))
    entry("hdr_sem_wait_eq", packet_header(OP_SEM_WAIT, 3, SEM_WAIT_EQ))
    entry("hdr_sem_wait_abort_eq",
          packet_header(OP_SEM_WAIT_ABORT, 4, SEM_WAIT_EQ))
    entry("hdr_reduce_divide", packet_header(OP_REDUCE, 6, REDUCE_DIVIDE))
    for name, va in [("a", A), ("b", B), ("c", C), ("d", D), ("e", E),
                     ("t", T), ("o", O), ("p1", P1), ("p2", P2),
                     ("va_limit", VA_LIMIT), ("va_limit_slot", VA_LIMIT - 8)]:
        entry(f"va_{name}", struct.pack("<Q", va))
    for size in (4096, BUFFER_BYTES, MODEL_BUDGET):
        entry(f"bytes_{size}", struct.pack("<Q", size))
    return "\n".join(["# Device model fuzzer dictionary: written by gen_corpus.py"]
                     + lines) + "\n"


def bad_streams(header_path):
    """The shared table's malformed streams, naming buffer A: (name, offset
    of the broken packet, bytes) of each kind, and the opcodes it counts as
    no packet's. Compiled against @header_path's folder first."""
    sources = [os.path.join(TOP, f) for f in (
        "tests/fuzz/model/bad_seeds.c", "tests/common/bad_packets.c",
        "libruntime/packets.c")]
    includes = [os.path.dirname(os.path.abspath(header_path))] + [
        os.path.join(TOP, d) for d in ("uapi/drm", "libruntime", "model",
                                       "tests/common")]
    # the header includes drm.h, as the Makefile finds it
    drm = subprocess.run(["pkg-config", "--cflags", "libdrm"], text=True,
                         stdout=subprocess.PIPE, check=False).stdout.split()
    cc = os.environ.get("CC", "cc").split()
    with tempfile.TemporaryDirectory() as tmp:
        program = os.path.join(tmp, "bad_seeds")
        try:
            subprocess.run(cc + ["-std=c11", "-D_GNU_SOURCE", "-Wall",
                                 "-Wextra", "-Werror", "-o", program]
                           + ["-I" + d for d in includes] + drm + sources,
                           check=True)
            lines = subprocess.run([program, str(A)], check=True, text=True,
                                   stdout=subprocess.PIPE).stdout.splitlines()
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"gen_corpus: the malformed streams (bad_seeds.c): {e}")
    streams, opcodes = [], []
    for line in lines:
        words = line.split()
        if words[0] == "bad-opcodes":
            opcodes = [int(w) for w in words[1:]]
        else:
            streams.append((words[0], int(words[1]), bytes.fromhex(words[2])))
    return streams, opcodes


def stream_opcodes(stream):
    """The opcodes of the packets of @stream, as far as it is well framed."""
    found, at = set(), 0
    while at + 8 <= len(stream):
        opcode, length = struct.unpack_from("<HH", stream, at)
        if not length:
            break
        found.add(opcode)
        at += 8 * length
    return found


def misses(all_seeds, bad_opcodes):
    """What of the uapi header the seeds miss, a sentence each."""
    said = []
    names = {value: name for name, value in U.opcodes.items()}
    for name, value in U.opcodes.items():
        if name not in PACKETS:
            said.append(f"{U.path} defines DRM_TERN_OP_{name} (0x{value:02x}), "
                        "which gen_corpus.py has no packet of: add it to "
                        "PACKETS and seeds that run it")
    ran = set()
    for name, data in all_seeds:
        if name.startswith("valid-"):
            ran |= stream_opcodes(data[HEADER_BYTES:])
    for name, value in U.opcodes.items():
        if name in PACKETS and value not in ran:
            said.append(f"no valid seed runs DRM_TERN_OP_{name}")
    for value in bad_opcodes:
        if value in names:
            said.append(f"tests/common/bad_packets.c counts opcode 0x{value:02x} "
                        f"as no packet's, but {U.path} defines it "
                        f"(DRM_TERN_OP_{names[value]})")
    if len(U.dtypes) != len(DTYPES):
        said.append(f"{U.path} has {len(U.dtypes)} REDUCE element types, "
                    f"gen_corpus.py knows {len(DTYPES)} (DTYPES)")
    if len(U.redops) != len(REDOPS):
        said.append(f"{U.path} has {len(U.redops)} REDUCE operations, "
                    f"gen_corpus.py knows {len(REDOPS)} (REDOPS)")
    return said


def write(corpus, dict_path, all_seeds):
    os.makedirs(corpus, exist_ok=True)
    names = set()
    for name, data in all_seeds:
        assert name not in names, name
        names.add(name)
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
    for stale in set(os.listdir(corpus)) - names:
        os.remove(os.path.join(corpus, stale))
    with open(dict_path, "w", encoding="ascii") as f:
        f.write(dictionary())


def same_tree(a, b):
    if sorted(os.listdir(a)) != sorted(os.listdir(b)):
        return False
    for name in os.listdir(a):
        with open(os.path.join(a, name), "rb") as x, \
             open(os.path.join(b, name), "rb") as y:
            if x.read() != y.read():
                return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare instead of writing")
    parser.add_argument("--header", default=HEADER,
                        help="the uapi header (default: %(default)s)")
    args = parser.parse_args()
    load(args.header)
    bad, bad_opcodes = bad_streams(args.header)
    all_seeds = seeds(bad)
    said = misses(all_seeds, bad_opcodes)
    for sentence in said:
        print(f"gen_corpus: {sentence}", file=sys.stderr)
    if said:
        return 1
    if not args.check:
        write(CORPUS, DICT, all_seeds)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        corpus, dict_path = os.path.join(tmp, "corpus"), os.path.join(tmp, "dict")
        write(corpus, dict_path, all_seeds)
        with open(dict_path, "rb") as x, open(DICT, "rb") as y:
            same = x.read() == y.read()
        if not (same and os.path.isdir(CORPUS) and same_tree(corpus, CORPUS)):
            print("gen_corpus: tests/fuzz/model/corpus or fuzz_model.dict is "
                  "not what gen_corpus.py writes: run it and commit",
                  file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
