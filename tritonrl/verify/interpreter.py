"""Is this host's Triton interpreter fit to judge kernels on CPU? Read where the candidates run, not in the caller.

Triton's interpreter before 3.7 turns a kernel's scalar argument into an index with int() of a
one-element array, which numpy refuses from 2.4 on: every honest kernel that loops over a runtime
size (`for start in range(0, n, BLOCK)`) fails as runtime_error. The verifier refuses such a pair
up front instead of rejecting honest kernels. The versions are read by a process started exactly as
the fork server is (scrubbed environment, `-P`), so a PYTHONPATH entry the sandbox does not pass on
cannot make the check pass while the children import something else.

Test: tests/verify/test_interpreter_check.py.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

INTERPRETER_FIXED_IN_TRITON = (3, 7)
NUMPY_REFUSING_OLD_INTERPRETER = (2, 4)
_READ_VERSIONS = """
import importlib
for name in ("triton", "numpy"):
    try:
        print(importlib.import_module(name).__version__)
    except Exception:
        print()
"""


class InterpreterUnusable(ValueError):
    """This environment's Triton interpreter would reject honest kernels: verifying on CPU here would mislead."""


def _major_minor(version: str) -> tuple[int, int] | None:
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match[1]), int(match[2])) if match else None


@functools.cache
def _sandbox_versions(pythonpath: str) -> tuple[str, str]:
    """(triton, numpy) versions a fork server started under the caller's `pythonpath` imports (the modules themselves,
    not metadata a stray dist-info could fake); '' where one does not import or the reading fails. Cached per
    PYTHONPATH: the sandbox's own path is derived from it by walking its directories, once, not per Verifier."""
    from tritonrl.verify.sandbox import scrubbed_env

    try:
        result = subprocess.run(
            [sys.executable, "-P", "-c", _READ_VERSIONS],
            env=scrubbed_env(),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return "", ""
    triton, numpy = (result.stdout.splitlines() + ["", ""])[:2]
    return triton.strip(), numpy.strip()


def check_interpreter() -> None:
    """Raise InterpreterUnusable for a Triton/numpy pair whose interpreter fails honest kernels; versions it cannot
    read (a source build, an odd version string) are let through: the pair is then unknown, not known bad."""
    triton, numpy = _sandbox_versions(os.environ.get("PYTHONPATH", ""))
    parsed_triton, parsed_numpy = _major_minor(triton), _major_minor(numpy)
    if not parsed_triton or not parsed_numpy:
        return
    if parsed_triton >= INTERPRETER_FIXED_IN_TRITON or parsed_numpy < NUMPY_REFUSING_OLD_INTERPRETER:
        return
    numpy_limit, triton_fixed = (
        ".".join(map(str, v)) for v in (NUMPY_REFUSING_OLD_INTERPRETER, INTERPRETER_FIXED_IN_TRITON)
    )
    raise InterpreterUnusable(
        f"the sandbox imports triton {triton} with numpy {numpy}: this Triton's interpreter cannot run kernels that loop "
        f"over a runtime size with numpy >= {numpy_limit}, so every such honest kernel would be judged runtime_error on "
        f"CPU. Install numpy<{numpy_limit} (or `pip install --target DIR 'numpy<{numpy_limit}'` with DIR an absolute "
        f"path outside your home, the checkout and TRITONRL_HOME, first on PYTHONPATH) or triton>={triton_fixed}, or "
        f"verify on a GPU (verify.device=cuda)."
    )
