#!/usr/bin/env bash
# Create or refresh the project's virtual environment at .venv/ and install
# the project into it (editable, with test extras). Re-installs only when
# pyproject.toml changed since the last install. Sourced by run.sh and test.sh.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
python="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
    echo "creating virtual environment in $repo/.venv" >&2
    "$python" -m venv .venv
fi
stamp=.venv/.tritonrl-installed
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "installing tritonrl and its dependencies into .venv (first time: a few minutes)" >&2
    # torch is pinned here, not in pyproject: 2.13.0 is the CPU build this
    # machine class has locally; GPU hosts keep their own torch (>=2.11).
    .venv/bin/python -m pip install --quiet --quiet --disable-pip-version-check "torch==2.13.0" -e ".[dev]"
    echo "$want" > "$stamp"
fi
