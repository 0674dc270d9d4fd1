"""Where the tests' data lives: the repository, the KernelBench copy beside the checkout, tests/fixtures, the
verifier catalogue's problems."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_KERNELBENCH = REPO.parent / "shared" / "kernelbench"
FIXTURES = REPO / "tests" / "fixtures"
CANDIDATE_PROBLEMS = REPO / "tests" / "verify" / "candidates" / "problems"  # the verifier catalogue's own problems
