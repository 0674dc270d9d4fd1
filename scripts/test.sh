#!/usr/bin/env bash
# Lint and format check (ruff, settings in pyproject.toml), then the test suite on two pytest workers
# (many tests wait on child processes and servers; tests marked xdist_group share one worker).
# Extra arguments go to pytest, e.g. -m "not slow" locally, or -n 0 for one process.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/ruff check --quiet .
.venv/bin/ruff format --check --quiet .
set +e
.venv/bin/python -m pytest -n 2 --dist loadgroup --durations=25 "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: treating as a failure" >&2
    exit 1
fi
exit "$status"
