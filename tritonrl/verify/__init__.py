"""The verifier: parse a model response, run the candidate, judge it."""

import os
from importlib import metadata

# Triton's interpreter before 3.7 turns a kernel's scalar argument into an index with int() of a
# one-element array, which numpy refuses from 2.4 on: every loop over a runtime size fails.
INTERPRETER_FIXED_IN_TRITON = (3, 7)
NUMPY_REFUSING_OLD_INTERPRETER = (2, 4)


class InterpreterUnusable(ValueError):
    """This environment's Triton interpreter would reject honest kernels: verifying on CPU here would mislead."""


def use_interpreter_on(device: str) -> None:
    """On cpu, Triton kernels run in its interpreter; call before triton is first imported in the process."""
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")


def _major_minor(package: str) -> tuple[int, int]:
    major, minor = metadata.version(package).split(".")[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def check_interpreter() -> None:
    """Refuse a Triton/numpy pair whose interpreter fails honest kernels (runtime_error on `range(0, n, BLOCK)`).

    The sandboxed children import the same packages as this process (sandbox.scrubbed_env), so the
    versions read here are theirs.
    """
    if _major_minor("triton") >= INTERPRETER_FIXED_IN_TRITON or _major_minor("numpy") < NUMPY_REFUSING_OLD_INTERPRETER:
        return
    numpy_limit, triton_fixed = (".".join(map(str, v)) for v in (NUMPY_REFUSING_OLD_INTERPRETER, INTERPRETER_FIXED_IN_TRITON))
    raise InterpreterUnusable(
        f"triton {metadata.version('triton')} with numpy {metadata.version('numpy')}: this Triton's interpreter cannot "
        f"run kernels that loop over a runtime size with numpy >= {numpy_limit}, so every such honest kernel would be "
        f"judged runtime_error on CPU. Install numpy<{numpy_limit} (or `pip install --target DIR 'numpy<{numpy_limit}'` "
        f"and put DIR first on PYTHONPATH) or triton>={triton_fixed}, or verify on a GPU (verify.device=cuda)."
    )
