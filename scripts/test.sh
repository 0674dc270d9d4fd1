#!/usr/bin/env bash
# The test suite. Extra arguments go to pytest, e.g. -m "not slow" locally.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
set +e
.venv/bin/python -m pytest "$@"
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: treating as a failure" >&2
    exit 1
fi
exit "$status"
