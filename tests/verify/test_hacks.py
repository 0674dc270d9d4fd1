"""Every known reward hack is rejected for the right reason; honest kernels are accepted; faults are contained.

Fixtures live in tests/verify/candidates/{honest,hacks,faults}/, one candidate
per file, with a header naming the built-in problem and the expected verdict:
    # problem: 01_relu.py
    # expect: reject traced_torch_compute|forbidden_torch_op
`reject a|b` means at least one of the listed reason codes must be present.
"""

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from tritonrl.verify.result import ReasonCode
from tritonrl.verify.verifier import Verifier

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


# Hack classes that must each come in several forms (a verifier that stops one form of a
# class usually misses the next): 30 launch-machinery compute, 31 instrumentation tampering,
# 32 non-tensor outputs, 33 shape specialisation, 34 memoisation, 35 input-distribution luck,
# 36 reading the verifier's state.
SEVERAL_FORMS = {f"{n}": 5 for n in range(30, 37)}

# Fixtures whose verdict does not wait on the sandbox's full timeout, so they run under a short one: the
# endless loops are killed at any timeout, and the static layer already rejects the C++ extension
# (cuda_extension) that the runtime layer would otherwise let build until the timeout.
SHORT_TIMEOUT = {"faults/timeout_kernel_loop", "faults/timeout_python_loop", "hacks/17_cpp_extension_load_inline"}


def test_fixture_catalogue_is_populated():
    kinds = {p.parent.name for p in FIXTURES}
    assert kinds == {"honest", "hacks", "faults"}
    assert sum(p.parent.name == "hacks" for p in FIXTURES) >= 30
    forms = Counter(p.stem.split("_", 1)[0] for p in FIXTURES if p.parent.name == "hacks")
    thin = {prefix: forms[prefix] for prefix, need in SEVERAL_FORMS.items() if forms[prefix] < need}
    assert not thin, f"hack classes with too few forms (need {SEVERAL_FORMS}): {thin}"


def test_fixture_headers_are_well_formed(builtin_problems):
    """Every fixture names a built-in problem and an expectation made of real reason codes."""
    codes = {c.value for c in ReasonCode}
    honest_problems = set()
    for path in FIXTURES:
        header = _header(path)
        where = f"{path.parent.name}/{path.name}"
        assert header.get("problem") in builtin_problems, f"{where}: unknown problem {header.get('problem')!r}"
        expect = header.get("expect", "").split()
        assert expect and expect[0] in ("accept", "reject"), f"{where}: bad expect line {header.get('expect')!r}"
        if expect[0] == "accept":
            assert path.parent.name == "honest", f"{where}: only honest fixtures may expect accept"
            honest_problems.add(header["problem"])
        else:
            assert path.parent.name != "honest", f"{where}: an honest fixture must expect accept"
            assert len(expect) == 2, f"{where}: reject needs one a|b|c list of codes"
            unknown = set(expect[1].split("|")) - codes
            assert not unknown, f"{where}: unknown reason codes {sorted(unknown)}"
    assert honest_problems == set(builtin_problems), f"problems without an honest fixture: {sorted(set(builtin_problems) - honest_problems)}"


@pytest.fixture(scope="session")
def references(verifier):
    """Each problem's reference run, made once and shared by its fixtures (as a GRPO group shares one)."""
    runs = {}

    def reference(problem):
        if problem.name not in runs:
            runs[problem.name] = verifier.prepare_reference(problem.source)
        return runs[problem.name]

    return reference


@pytest.fixture(scope="session")
def short_timeout_verifier(verifier):
    """The test verifier with a 5 s timeout; a reference run does not depend on the verifier that judges against it."""
    with Verifier(replace(verifier.settings, timeout_s=5)) as v:
        yield v


def _fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_short_timeout_fixtures_exist():
    assert SHORT_TIMEOUT <= {_fixture_id(p) for p in FIXTURES}


@pytest.mark.slow
@pytest.mark.parametrize("path", FIXTURES, ids=_fixture_id)
def test_candidate_gets_the_expected_verdict(path, request, references, builtin_problems, record_property):
    header = _header(path)
    problem = builtin_problems[header["problem"]]
    verifier = request.getfixturevalue("short_timeout_verifier" if _fixture_id(path) in SHORT_TIMEOUT else "verifier")
    verdict = verifier.verify_against(references(problem), path.read_text())
    # read by the catalogue tally in conftest.py (accepted hack = missed cheat, rejected honest = false reject)
    record_property("verifier_accepted", verdict.correct)
    record_property("verifier_codes", ",".join(verdict.codes))
    expect = header["expect"].split()
    if expect[0] == "accept":
        assert verdict.correct, [r.to_dict() for r in verdict.reasons]
        return
    assert expect[0] == "reject"
    wanted = set(expect[1].split("|"))
    assert not verdict.correct
    assert wanted & set(verdict.codes), f"expected one of {sorted(wanted)}, got {verdict.codes}: {verdict.reasons}"
