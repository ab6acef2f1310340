# SPDX-License-Identifier: MIT
"""tools/compare/torch-allreduce.py, given nonsense, says what it wanted
before it starts any rank."""
import os
import subprocess
import sys

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "tools",
                      "compare", "torch-allreduce.py")


@pytest.mark.parametrize("args,env,words", [
    (["x"], {}, "each a number of ranks of at least 1"),
    (["0"], {}, "each a number of ranks of at least 1"),
    (["2"], {"TERN_COMPARE_FACTOR": "1"}, "TERN_COMPARE_FACTOR=1: want"),
    (["2"], {"TERN_COMPARE_MAX": "big"}, "TERN_COMPARE_MAX=big: want"),
    (["2"], {"TERN_COMPARE_ITERS": "-3"}, "TERN_COMPARE_ITERS=-3: want"),
])
def test_refuses_nonsense(args, env, words):
    out = subprocess.run([sys.executable, SCRIPT] + args,
                         env=dict(os.environ, **env), capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 1 and words in out.stderr, out.stderr
    assert out.stdout == ""
