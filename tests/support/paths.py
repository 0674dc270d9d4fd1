"""Where the tests' data lives: the repository, the KernelBench copy beside the checkout, tests/fixtures."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_KERNELBENCH = REPO.parent / "shared" / "kernelbench"
FIXTURES = REPO / "tests" / "fixtures"
