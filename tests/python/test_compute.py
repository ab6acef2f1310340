# SPDX-License-Identifier: MIT
"""The compute kernels from Python (tern.gemm, tern.softmax, ... on
tern.Matrix): each against NumPy in float64, and each bad argument a
tern.Error. The simulated chips have two cores (tests/python/conftest.py)."""
import numpy as np
import pytest

import tern

RNG = np.random.default_rng(29)


def status(excinfo):
    return excinfo.value.status


@pytest.fixture(scope="module")
def dev():
    d = tern.Device(0)
    yield d
    d.close()


@pytest.fixture(scope="module")
def stream(dev):
    return dev.stream()


def bf16(x):
    """float32 values rounded to bfloat16 (nearest even), as uint16 bits."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def matrix(dev, array, dtype="float32"):
    """A device matrix holding @array (uint16 bits for bfloat16)."""
    array = np.ascontiguousarray(array)
    buf = dev.alloc(max(array.nbytes, 64))
    np.frombuffer(buf, dtype=array.dtype, count=array.size)[:] = array.ravel()
    return tern.Matrix(buf, array.shape[0], array.shape[1], dtype)


def vector(dev, array):
    array = np.ascontiguousarray(array, dtype=np.float32)
    buf = dev.alloc(max(array.nbytes, 64))
    np.frombuffer(buf, dtype=np.float32, count=array.size)[:] = array
    return buf


def read(m, dtype=np.float32):
    """A matrix's values (float32 by default)."""
    flat = np.frombuffer(m.buffer, dtype=dtype, count=m.rows * m.cols,
                         offset=m.offset)
    return flat.reshape(m.rows, m.cols).copy()


def read_vector(buf, n):
    return np.frombuffer(buf, dtype=np.float32, count=n).copy()


def close(got, want, rtol, atol):
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol,
                               atol=atol)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


FUNCTIONS = {
    "identity": (lambda x: x, lambda x: np.ones_like(x)),
    "relu": (lambda x: np.maximum(x, 0), lambda x: (x > 0).astype(float)),
    "gelu": (gelu, None),
    "silu": (lambda x: x * sigmoid(x),
             lambda x: sigmoid(x) * (1 + x * (1 - sigmoid(x)))),
    "sigmoid": (sigmoid, lambda x: sigmoid(x) * (1 - sigmoid(x))),
    "tanh": (np.tanh, lambda x: 1 - np.tanh(x) ** 2),
    "exp": (np.exp, np.exp),
    "square": (lambda x: x * x, lambda x: 2 * x),
}


# ---- GEMM ----

@pytest.mark.parametrize("ta,tb", [(False, False), (True, False),
                                   (False, True), (True, True)])
def test_gemm_float32_transposes(dev, stream, ta, tb):
    m, n, k = 130, 70, 200
    a = RNG.standard_normal((k, m) if ta else (m, k)).astype(np.float32)
    b = RNG.standard_normal((n, k) if tb else (k, n)).astype(np.float32)
    c = matrix(dev, np.zeros((m, n), np.float32))
    tern.gemm(matrix(dev, a), matrix(dev, b), c, stream, transpose_a=ta,
              transpose_b=tb)
    stream.synchronize()
    want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b)
    close(read(c), want, 1e-5, 1e-4)


def test_gemm_bf16_epilogue(dev, stream):
    """bfloat16 in, alpha, beta, a bias and relu, bfloat16 out."""
    m, n, k = 64, 600, 96
    a, b = bf16(RNG.standard_normal((m, k))), bf16(RNG.standard_normal((k, n)))
    c0 = RNG.standard_normal((m, n)).astype(np.float32)
    bias = RNG.standard_normal(n).astype(np.float32)
    c = matrix(dev, bf16(c0), "bfloat16")
    tern.gemm(matrix(dev, a, "bfloat16"), matrix(dev, b, "bfloat16"), c,
              stream, alpha=0.5, beta=2.0, bias=vector(dev, bias),
              activation="relu")
    stream.synchronize()
    want = np.maximum(0.5 * (bf16_values(a).astype(np.float64) @
                             bf16_values(b)) +
                      2.0 * bf16_values(bf16(c0)) + bias, 0)
    close(bf16_values(read(c, np.uint16)), want, 1e-2, 2e-2)


def test_gemm_refusals(dev, stream):
    a = matrix(dev, np.zeros((4, 5), np.float32))
    b = matrix(dev, np.zeros((6, 3), np.float32))
    c = matrix(dev, np.zeros((4, 3), np.float32))
    with pytest.raises(tern.Error) as e:
        tern.gemm(a, b, c, stream)          # K 5 against 6
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT" and "M x K" in str(e.value)
    with pytest.raises(tern.Error) as e:
        tern.gemm(a, "b", c, stream)
    assert "tern.Matrix" in str(e.value)
    with pytest.raises(tern.Error):
        tern.gemm(a, a, c, stream, activation="swish")
    with pytest.raises(tern.Error):
        tern.gemm(a, a, c, "stream")
    past = tern.Matrix(c.buffer, 4, 3, offset=c.buffer.size - 8)
    with pytest.raises(tern.Error) as e:
        tern.gemm(matrix(dev, np.zeros((4, 4), np.float32)),
                  matrix(dev, np.zeros((4, 3), np.float32)), past, stream)
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"


def test_matrix_describes_and_refuses(dev):
    buf = dev.alloc(4096)
    m = tern.Matrix(buf, 3, 4, "bfloat16", offset=16, ld=10)
    assert (m.rows, m.cols, m.ld, m.offset, m.dtype) == (3, 4, 10, 16,
                                                         "bfloat16")
    assert m.buffer is buf and m.nbytes == (2 * 10 + 4) * 2
    assert "3 x 4 bfloat16" in repr(m)
    for args, kwargs in [((buf, 0, 4), {}), ((buf, 3, 4), {"ld": 3}),
                         ((b"x", 3, 4), {}), ((buf, 3, 4), {"dtype": "f33"}),
                         ((buf, -1, 4), {})]:
        with pytest.raises(tern.Error) as e:
            tern.Matrix(*args, **kwargs)
        assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    buf.free()
    with pytest.raises(tern.Error) as e:
        tern.activation(m, m, "relu", dev.stream())
    assert "freed" in str(e.value)


# ---- row kernels ----

@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_activation_and_backward(dev, stream, name):
    f, df = FUNCTIONS[name]
    x = RNG.uniform(-3, 3, (100, 40)).astype(np.float32)
    dy = RNG.standard_normal((100, 40)).astype(np.float32)
    xm, y, dx = matrix(dev, x), matrix(dev, 0 * x), matrix(dev, 0 * x)
    tern.activation(xm, y, name, stream)
    tern.activation_backward(xm, matrix(dev, dy), dx, name, stream)
    stream.synchronize()
    x64 = x.astype(np.float64)
    close(read(y), f(x64), 1e-5, 1e-6)
    if df is not None:
        close(read(dx), dy * df(x64), 1e-4, 1e-5)


def test_elementwise_exact(dev, stream):
    a = RNG.standard_normal((50, 30)).astype(np.float32)
    b = RNG.standard_normal((50, 30)).astype(np.float32)
    for op, want in [("add", a + b), ("subtract", a - b), ("multiply", a * b),
                     ("max", np.maximum(a, b)), ("min", np.minimum(a, b))]:
        out = matrix(dev, 0 * a)
        tern.elementwise(matrix(dev, a), op, matrix(dev, b), out, stream)
        stream.synchronize()
        assert np.array_equal(read(out), want), op
    with pytest.raises(tern.Error):
        tern.elementwise(matrix(dev, a), "divide", matrix(dev, b), out, stream)


@pytest.mark.parametrize("log", [False, True])
def test_softmax_and_backward(dev, stream, log):
    x = RNG.standard_normal((129, 300)).astype(np.float32) * 4
    dy = RNG.standard_normal((129, 300)).astype(np.float32)
    y, dx = matrix(dev, 0 * x), matrix(dev, 0 * x)
    tern.softmax(matrix(dev, x), y, stream, log=log)
    stream.synchronize()
    x64 = x.astype(np.float64)
    lse = np.log(np.exp(x64 - x64.max(1, keepdims=True)).sum(1, keepdims=True))
    logp = x64 - x64.max(1, keepdims=True) - lse
    # log-softmax to float32's ulp of the row's largest terms
    close(read(y), logp if log else np.exp(logp), 1e-5, 1e-5 if log else 1e-6)
    tern.softmax_backward(y, matrix(dev, dy), dx, stream, log=log)
    stream.synchronize()
    yv = read(y).astype(np.float64)
    if log:
        want = dy - np.exp(yv) * dy.sum(1, keepdims=True)
    else:
        want = (dy - (dy * yv).sum(1, keepdims=True)) * yv
    close(read(dx), want, 1e-4, 1e-5)


def test_causal_attention_on_the_engines(dev, stream):
    """One head: P = softmax(Q K^T / sqrt(d) + causal mask), O = P V, and
    the gradients of Q, K and V, all on the device, against NumPy."""
    t, d = 40, 16
    q, k, v, do = (RNG.standard_normal((t, d)).astype(np.float32)
                   for _ in range(4))
    mask = np.triu(np.full((t, t), -np.inf, np.float32), 1)
    scale = 1 / np.sqrt(d)
    qm, km, vm, dom = (matrix(dev, a) for a in (q, k, v, do))
    s, p = matrix(dev, np.zeros((t, t), np.float32)), matrix(
        dev, np.zeros((t, t), np.float32))
    o = matrix(dev, np.zeros((t, d), np.float32))
    tern.gemm(qm, km, s, stream, transpose_b=True)
    tern.attention_softmax(s, p, float(scale), stream, mask=matrix(dev, mask))
    tern.gemm(p, vm, o, stream)
    dp, ds = (matrix(dev, np.zeros((t, t), np.float32)) for _ in range(2))
    dq, dk, dv = (matrix(dev, np.zeros((t, d), np.float32)) for _ in range(3))
    tern.gemm(dom, vm, dp, stream, transpose_b=True)          # dP = dO V^T
    tern.gemm(p, dom, dv, stream, transpose_a=True)           # dV = P^T dO
    tern.attention_softmax_backward(p, dp, ds, float(scale), stream)
    tern.gemm(ds, km, dq, stream)                             # dQ = dS K
    tern.gemm(ds, qm, dk, stream, transpose_a=True)           # dK = dS^T Q
    stream.synchronize()
    q64, k64, v64, do64 = (a.astype(np.float64) for a in (q, k, v, do))
    z = q64 @ k64.T * scale + mask
    pw = np.exp(z - z.max(1, keepdims=True))
    pw /= pw.sum(1, keepdims=True)
    close(read(p), pw, 1e-5, 1e-6)
    assert (read(p)[np.triu_indices(t, 1)] == 0).all()
    close(read(o), pw @ v64, 1e-4, 1e-5)
    dpw = do64 @ v64.T
    dsw = (dpw - (dpw * pw).sum(1, keepdims=True)) * pw * scale
    close(read(dv), pw.T @ do64, 1e-4, 1e-5)
    close(read(dq), dsw @ k64, 1e-4, 1e-5)
    close(read(dk), dsw.T @ q64, 1e-4, 1e-5)
    with pytest.raises(tern.Error) as e:
        tern.attention_softmax(s, p, float("nan"), stream)
    assert "scale" in str(e.value)


def test_layer_norm_and_backward(dev, stream):
    rows, cols = 70, 256
    x = RNG.standard_normal((rows, cols)).astype(np.float32) * 3 + 1
    gamma = RNG.standard_normal(cols).astype(np.float32)
    beta = RNG.standard_normal(cols).astype(np.float32)
    dy = RNG.standard_normal((rows, cols)).astype(np.float32)
    xm, y = matrix(dev, x), matrix(dev, 0 * x)
    g, mean, rstd = vector(dev, gamma), dev.alloc(rows * 4), dev.alloc(rows * 4)
    tern.layer_norm(xm, g, vector(dev, beta), y, mean, rstd, stream, eps=1e-5)
    dx, dg, db = matrix(dev, 0 * x), dev.alloc(cols * 4), dev.alloc(cols * 4)
    tern.layer_norm_backward(xm, g, mean, rstd, matrix(dev, dy), dx, dg, db,
                             stream)
    stream.synchronize()
    x64 = x.astype(np.float64)
    mu = x64.mean(1, keepdims=True)
    rs = 1 / np.sqrt(((x64 - mu) ** 2).mean(1, keepdims=True) + 1e-5)
    xhat = (x64 - mu) * rs
    close(read(y), xhat * gamma + beta, 1e-4, 1e-5)
    close(read_vector(rstd, rows), rs.ravel(), 1e-5, 0)
    gh = dy * gamma
    want_dx = (gh - gh.mean(1, keepdims=True) -
               xhat * (gh * xhat).mean(1, keepdims=True)) * rs
    close(read(dx), want_dx, 1e-4, 1e-5)
    close(read_vector(dg, cols), (dy * xhat).sum(0), 1e-4, 1e-4)
    close(read_vector(db, cols), dy.astype(np.float64).sum(0), 1e-5, 1e-5)


def test_cross_entropy_and_sum_rows(dev, stream):
    rows, classes = 40, 10
    logits = RNG.standard_normal((rows, classes)).astype(np.float32) * 2
    labels = RNG.integers(0, classes, rows)
    targets = np.eye(classes, dtype=np.float32)[labels]
    loss, dl = dev.alloc(rows * 4), matrix(dev, 0 * logits)
    tern.cross_entropy(matrix(dev, logits), matrix(dev, targets), loss, stream,
                       dlogits=dl, grad_scale=1 / rows)
    sums = dev.alloc(classes * 4)
    tern.sum_rows(matrix(dev, logits), sums, stream)
    stream.synchronize()
    z = logits.astype(np.float64)
    logp = z - z.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    close(read_vector(loss, rows), -(targets * logp).sum(1), 1e-5, 1e-6)
    close(read(dl), (np.exp(logp) - targets) / rows, 1e-4, 1e-7)
    close(read_vector(sums, classes), z.sum(0), 1e-5, 1e-5)


# ---- optimizer steps ----

def test_sgd_step_matches_torch_formula(dev, stream):
    n = 1500
    p = RNG.standard_normal(n).astype(np.float32)
    param, vel = vector(dev, p), vector(dev, np.zeros(n))
    p64, v64 = p.astype(np.float64), np.zeros(n)
    for step in range(1, 4):
        g = RNG.standard_normal(n).astype(np.float32)
        tern.sgd_step(param, vector(dev, g), n, stream, lr=0.1, velocity=vel,
                      momentum=0.9, weight_decay=0.01, step=step)
        stream.synchronize()
        d = g + 0.01 * p64
        v64 = d if step == 1 else 0.9 * v64 + d
        p64 = p64 - 0.1 * v64
    close(read_vector(param, n), p64, 1e-5, 1e-6)


def test_adam_step_matches_torch_formula(dev, stream):
    n = 1500
    p = RNG.standard_normal(n).astype(np.float32)
    param = vector(dev, p)
    m, v = vector(dev, np.zeros(n)), vector(dev, np.zeros(n))
    p64, m64, v64 = p.astype(np.float64), np.zeros(n), np.zeros(n)
    for step in range(1, 4):
        g = RNG.standard_normal(n).astype(np.float32)
        tern.adam_step(param, vector(dev, g), m, v, n, stream, lr=0.01,
                       weight_decay=0.1, decoupled=True, step=step)
        stream.synchronize()
        p64 *= 1 - 0.01 * 0.1
        m64 = 0.9 * m64 + 0.1 * g
        v64 = 0.999 * v64 + 0.001 * g.astype(np.float64) ** 2
        p64 -= 0.01 / (1 - 0.9**step) * m64 / (
            np.sqrt(v64 / (1 - 0.999**step)) + 1e-8)
    close(read_vector(param, n), p64, 1e-5, 1e-6)


def test_optimizer_refusals(dev, stream):
    a, b, c = dev.alloc(4096), dev.alloc(4096), dev.alloc(4096)
    with pytest.raises(tern.Error) as e:
        tern.sgd_step(a, b, 100, stream)
    assert "lr" in str(e.value)
    with pytest.raises(tern.Error) as e:
        tern.sgd_step(a, b, 100, stream, lr=0.1, momentum=0.9)
    assert "velocity" in str(e.value)
    with pytest.raises(tern.Error) as e:
        tern.sgd_step(a, a, 100, stream, lr=0.1)
    assert "overlap" in str(e.value)
    with pytest.raises(tern.Error) as e:
        tern.adam_step(a, b, c, (c, 8), 100, stream, lr=0.1)
    assert status(e) == "TERN_ERROR_INVALID_ARGUMENT"
    with pytest.raises(tern.Error):
        tern.adam_step(a, b, c, dev.alloc(4096), 100, stream, lr=0.1, step=0)
    with pytest.raises(tern.Error):
        tern.adam_step(a, b, c, dev.alloc(4096), 2000, stream, lr=0.1)


def test_temporaries_live_until_their_work_is_done(dev, stream):
    """Arguments made in the call itself (freed by Python as it returns)
    stay alive until the stream has done the work that uses them."""
    x = RNG.standard_normal((256, 512)).astype(np.float32)
    y = matrix(dev, 0 * x)
    tern.activation(matrix(dev, x), y, "exp", stream)
    dst = dev.alloc(x.nbytes)
    stream.copy(dst, vector(dev, x.ravel()), x.nbytes)
    stream.synchronize()
    close(read(y), np.exp(x.astype(np.float64)), 1e-5, 1e-6)
    assert np.array_equal(np.frombuffer(dst, dtype=np.float32), x.ravel())
