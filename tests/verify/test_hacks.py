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

from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.result import ReasonCode, Verdict

from tests.support.candidates import candidate_header

CANDIDATES = Path(__file__).parent / "candidates"
FIXTURES = sorted(p for p in CANDIDATES.glob("*/*.py") if p.parent.name != "problems")


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


def test_fixture_headers_are_well_formed(builtin_problems, catalogue_problems):
    """Every fixture names a known problem and an expectation made of real reason codes."""
    codes = {c.value for c in ReasonCode}
    honest_problems = set()
    for path in FIXTURES:
        header = candidate_header(path)
        where = f"{path.parent.name}/{path.name}"
        assert header.get("problem") in catalogue_problems, f"{where}: unknown problem {header.get('problem')!r}"
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
    assert honest_problems == set(catalogue_problems), (
        f"problems without an honest fixture: {sorted(set(catalogue_problems) - honest_problems)}"
    )


def _fixture_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def test_short_timeout_fixtures_exist():
    assert SHORT_TIMEOUT <= {_fixture_id(p) for p in FIXTURES}


@pytest.fixture(scope="session")
def verdict_of(request, verifier_settings, catalogue_problems):
    """The verifier's verdict on a fixture file.

    The first test of a problem verifies every selected fixture of that problem at once, as the filter stage
    verifies a problem's samples: one reference run, the candidates spread over a verifier pool's workers (one
    per core on CPU; one per GPU, so a GPU's candidates still run one at a time). SHORT_TIMEOUT fixtures go
    through a pool with a 5 s timeout.
    """
    selected = [
        item.callspec.params["path"]
        for item in request.session.items
        if getattr(item, "originalname", "") == "test_candidate_gets_the_expected_verdict"
    ]
    verdicts: dict[Path, Verdict] = {}
    with (
        VerifierPool(verifier_settings, workers_per_gpu=1) as pool,
        VerifierPool(replace(verifier_settings, timeout_s=5), workers_per_gpu=1) as short_pool,
    ):

        def pool_of(path: Path) -> VerifierPool:
            return short_pool if _fixture_id(path) in SHORT_TIMEOUT else pool

        def verdict(path: Path) -> Verdict:
            if path not in verdicts:
                problem = catalogue_problems[candidate_header(path)["problem"]]
                batch = [
                    p
                    for p in selected
                    if candidate_header(p)["problem"] == problem.name and pool_of(p) is pool_of(path)
                ]
                results = pool_of(path).verify_batches(
                    [ProblemBatch(problem.name, problem.source, [p.read_text() for p in batch])]
                )
                verdicts.update(zip(batch, results[problem.name]))
            return verdicts[path]

        yield verdict


# One pytest worker takes all of a problem's fixtures (scripts/test.sh runs `--dist loadgroup`): each worker's
# verdict_of verifies every selected fixture of a problem at its first one, so a problem split between workers
# would be verified twice.
_BY_PROBLEM = [
    pytest.param(path, id=_fixture_id(path), marks=pytest.mark.xdist_group(candidate_header(path)["problem"]))
    for path in FIXTURES
]


@pytest.mark.slow
@pytest.mark.parametrize("path", _BY_PROBLEM)
def test_candidate_gets_the_expected_verdict(path, verdict_of, record_property):
    header = candidate_header(path)
    verdict = verdict_of(path)
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


def test_every_candidate_file_sits_in_a_kind_folder():
    """A fixture outside honest/, hacks/ or faults/ would never run (problems/ holds the problems they may name)."""
    assert {p.parent.name for p in FIXTURES} <= {"honest", "hacks", "faults"}
    assert sorted(p.name for p in CANDIDATES.glob("*.py")) == []
