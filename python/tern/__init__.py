# SPDX-License-Identifier: MIT
"""Tern from Python: devices, buffers, streams, events, collectives and
the compute kernels (tern.Matrix, tern.gemm, tern.softmax, ...).

A thin layer over libtern (tern.h): every call that fails raises
tern.Error, whose .status is libtern's status name. Buffers are
bytes-like (memoryview, numpy.frombuffer) and DLPack producers
(torch.from_dlpack, numpy.from_dlpack) without a copy.
"""
from ._tern import *  # noqa: F401,F403
from ._tern import Error, __version__  # noqa: F401
