#!/usr/bin/env bash
# The gpu-marked tests, on a host with a CUDA GPU: run them before a change to a GPU path (the verifier on cuda,
# timing, hand-off, distributed GRPO) lands; CI has no GPU and skips them. Runs .venv's python where there is one,
# else the host's python3 (its torch and triton; $PYTHON to choose another) with this checkout on PYTHONPATH: GPU
# hosts need not have the orchestration packages installed.
# Extra arguments go to pytest, e.g. -x or -k timing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}" TRITONRL_TEST_DEVICE=cuda
python="${PYTHON:-$([ -x .venv/bin/python ] && echo .venv/bin/python || echo python3)}"
"$python" -c "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 'no CUDA GPU here: run scripts/test-gpu.sh on a GPU host')"
mapfile -t files < <(grep -rl --include='test_*.py' "pytest.mark.gpu" tests | sort)
exec "$python" -m pytest -p no:cacheprovider -m gpu -rs "${files[@]}" "$@"
