#!/usr/bin/env bash
# The main job: the TritonRL pipeline on the embedded `tiny` CPU profile.
# Extra arguments go to `tritonrl run`, e.g. --set verify.trials=5.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec .venv/bin/tritonrl run --profile tiny "$@"
