"""Every known reward hack is rejected for the right reason; honest kernels are accepted; faults are contained.

Fixtures live in tests/verify/candidates/{honest,hacks,faults}/, one candidate
per file, with a header naming the built-in problem and the expected verdict:
    # problem: 01_relu.py
    # expect: reject traced_torch_compute|forbidden_torch_op
`reject a|b` means at least one of the listed reason codes must be present.
"""

from pathlib import Path

import pytest

CANDIDATES = Path(__file__).parent / "candidates"


def _header(path: Path) -> dict[str, str]:
    fields = {}
    for line in path.read_text().splitlines():
        if not line.startswith("# "):
            break
        key, sep, value = line[2:].partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return fields


FIXTURES = sorted(CANDIDATES.glob("*/*.py"))


def test_fixture_catalogue_is_populated():
    kinds = {p.parent.name for p in FIXTURES}
    assert kinds == {"honest", "hacks", "faults"}
    assert sum(p.parent.name == "hacks" for p in FIXTURES) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_candidate_gets_the_expected_verdict(path, verifier, builtin_problems):
    header = _header(path)
    problem = builtin_problems[header["problem"]]
    verdict = verifier.verify(problem.source, path.read_text())
    expect = header["expect"].split()
    if expect[0] == "accept":
        assert verdict.correct, [r.to_dict() for r in verdict.reasons]
        return
    assert expect[0] == "reject"
    wanted = set(expect[1].split("|"))
    assert not verdict.correct
    assert wanted & set(verdict.codes), f"expected one of {sorted(wanted)}, got {verdict.codes}: {verdict.reasons}"
