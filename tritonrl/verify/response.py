"""Split a model response into its plan (reasoning) and its code.

A response is free text holding reasoning and then one fenced Python block
with `ModelNew`; HRD-GRPO rewards the two parts separately, so the split must
be exact and reproducible. A bare `.py` file is a response with no plan.

Test: tests/verify/test_response.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A fence opens with ``` plus an optional language tag and closes with ```
# at the start of a line; the last Python block wins because models often
# show a draft before the final answer.
_FENCE = re.compile(r"^```[ \t]*(?P<lang>[A-Za-z0-9_+-]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
_PYTHON_TAGS = {"", "python", "py", "python3"}


@dataclass(frozen=True)
class ParsedResponse:
    """The plan text, the code text, and where the code sits in the response."""

    plan: str
    code: str | None
    code_start: int  # character offset of the code body in the response, -1 if none
    code_end: int


_PYTHON_START = re.compile(r"^(import |from |class |def |@|#|\"\"\"|\'\'\')")


def _looks_like_python_file(text: str) -> bool:
    """Unfenced text is a bare `.py` candidate if it mentions ModelNew or starts like a module."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    return bool(re.search(r"\bModelNew\b", text) or _PYTHON_START.match(first))


def parse_response(text: str) -> ParsedResponse:
    """Return the plan and the last fenced Python block of `text`.

    Text with no fence is taken as bare code when it looks like a Python
    module (a `.py` candidate), otherwise as a plan with no code.
    """
    blocks = [m for m in _FENCE.finditer(text) if m.group("lang").lower() in _PYTHON_TAGS]
    if blocks:
        last = blocks[-1]
        return ParsedResponse(
            plan=text[: last.start()].strip(),
            code=last.group("body"),
            code_start=last.start("body"),
            code_end=last.end("body"),
        )
    if _looks_like_python_file(text):
        return ParsedResponse(plan="", code=text, code_start=0, code_end=len(text))
    return ParsedResponse(plan=text.strip(), code=None, code_start=-1, code_end=-1)
