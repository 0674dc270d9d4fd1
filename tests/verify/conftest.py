import os
from pathlib import Path

import pytest

from tritonrl.problems.loaders import load_builtin, load_python_files
from tritonrl.verify.verifier import Verifier, VerifierSettings

# Problems the built-in suite lacks that fixtures need (a PReLU's one-element slope, a BatchNorm's running
# variance, BCE targets, a transpose, an fp64 model): `# problem: <file name>` in a fixture finds them here too.
CATALOGUE_PROBLEMS = Path(__file__).parent / "candidates" / "problems"


@pytest.fixture(scope="session")
def builtin_problems():
    return {p.name: p for p in load_builtin()}


@pytest.fixture(scope="session")
def catalogue_problems(builtin_problems):
    """What a fixture's `# problem:` header may name: the built-in suite and tests/verify/candidates/problems/."""
    return {**builtin_problems, **{p.name: p for p in load_python_files(CATALOGUE_PROBLEMS)}}


@pytest.fixture(scope="session")
def verifier_settings():
    """The verifier tests' settings: the default profile's 3 trials at the primary shapes (the problem's own inputs,
    zeros and ties, an offset), so each fixture meets every kind of trial a pipeline run gives.

    CPU by default; TRITONRL_TEST_DEVICE=cuda runs the same tests on a GPU host.
    """
    device = os.environ.get("TRITONRL_TEST_DEVICE", "cpu")
    return VerifierSettings(device=device, trials=3, timeout_s=30 if device == "cpu" else 120)


@pytest.fixture(scope="session")
def verifier(verifier_settings):
    """One verifier (and fork server) shared by the verifier tests."""
    with Verifier(verifier_settings) as v:
        yield v


# ---------------------------------------------------------------- catalogue tally
# Outcome of every test_hacks.py fixture test that ran, keyed by "kind/stem", so the terminal
# summary can say how the verifier did on the catalogue (false rejects, missed cheats).
_CATALOGUE_TEST = "test_hacks.py::test_candidate_gets_the_expected_verdict["
_catalogue: dict[str, tuple[str, bool | None]] = {}  # "hacks/30_x" -> (outcome, verifier accepted?)


def pytest_runtest_logreport(report):
    if _CATALOGUE_TEST not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        fixture = report.nodeid.split("[", 1)[1].split("]", 1)[0]  # under --dist loadgroup, "…]@<group>"
        accepted = dict(report.user_properties).get("verifier_accepted")
        _catalogue[fixture] = ("skipped" if report.skipped else "passed" if report.passed else "failed", accepted)


def catalogue_summary(results: dict[str, tuple[str, bool | None]]) -> list[str]:
    """The tally line (and the names behind any misses) from recorded fixture outcomes."""
    ran = {name: r for name, r in results.items() if r[0] != "skipped"}
    if not ran:
        return []

    def of(kind: str) -> dict[str, tuple[str, bool | None]]:
        return {name: r for name, r in ran.items() if name.split("/", 1)[0] == kind}

    honest, hacks, faults = of("honest"), of("hacks"), of("faults")
    false_rejects = sorted(n for n, (outcome, accepted) in honest.items() if outcome != "passed")
    missed = sorted(n for n, (outcome, accepted) in hacks.items() if outcome != "passed" and accepted)
    wrong_reason = sorted(n for n, (outcome, accepted) in hacks.items() if outcome != "passed" and not accepted)
    uncontained = sorted(n for n, (outcome, accepted) in faults.items() if outcome != "passed")
    parts = []
    if honest:
        parts.append(
            f"honest {len(honest) - len(false_rejects)}/{len(honest)} accepted ({len(false_rejects)} false rejects)"
        )
    if hacks:
        parts.append(
            f"hacks {len(hacks) - len(missed) - len(wrong_reason)}/{len(hacks)} rejected "
            f"({len(missed)} missed, {len(wrong_reason)} rejected for an unexpected reason)"
        )
    if faults:
        parts.append(f"faults {len(faults) - len(uncontained)}/{len(faults)} contained")
    lines = ["verifier catalogue: " + ", ".join(parts)]
    for label, names in (
        ("false rejects", false_rejects),
        ("missed cheats", missed),
        ("rejected for an unexpected reason", wrong_reason),
        ("faults not contained", uncontained),
    ):
        if names:
            lines.append(f"  {label}: {' '.join(names)}")
    return lines


def pytest_terminal_summary(terminalreporter):
    lines = catalogue_summary(_catalogue)
    if lines:
        terminalreporter.section("verifier catalogue")
        for line in lines:
            terminalreporter.write_line(line)
