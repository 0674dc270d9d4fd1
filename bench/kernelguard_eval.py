"""Does the `kernelguard` rule layer (PyPI) add catches to our static layer without false rejects?

Runs kernelguard's `analyze_code` and `tritonrl.verify.static.check_static` on
every fixture of the verifier catalogue (tests/verify/candidates/{honest,hacks,faults})
and prints, per folder, how many each flags, plus every fixture kernelguard
flags and the static layer passes (its only possible added value) and every
honest fixture kernelguard flags (false rejects). kernelguard is not a project
dependency: install it into a scratch directory and point at it.

    pip download kernelguard --no-deps -d /tmp/kg && unzip -q /tmp/kg/*.whl -d /tmp/kg/src
    .venv/bin/python -m bench.kernelguard_eval --kernelguard-path /tmp/kg/src
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from tritonrl.verify.static import check_static

CANDIDATES = Path(__file__).resolve().parents[1] / "tests" / "verify" / "candidates"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelguard-path", default="", help="directory holding kernelguard.py (else: installed)")
    args = parser.parse_args()
    if args.kernelguard_path:
        sys.path.insert(0, args.kernelguard_path)
    import kernelguard

    counts: Counter = Counter()
    added, false_rejects = [], []
    for path in sorted(CANDIDATES.glob("*/*.py")):
        code = path.read_text()
        result = kernelguard.analyze_code(code, compute_structural_hash=False)
        flagged = result["classification"] == "hacked"  # "low_confidence" would also flag honest caches
        static = bool(check_static(code))
        folder = path.parent.name
        counts[folder, "total"] += 1
        counts[folder, "kernelguard"] += flagged
        counts[folder, "static"] += static
        patterns = ", ".join(p["pattern"] for p in result["matched_patterns"])
        if flagged and not static:
            added.append(f"{folder}/{path.name}: {patterns}")
        if flagged and folder == "honest":
            false_rejects.append(f"{path.name}: {patterns}")
    print(f"kernelguard {getattr(kernelguard, '__version__', '')} on {CANDIDATES}")
    for folder in ("honest", "hacks", "faults"):
        print(
            f"- {folder}: {counts[folder, 'total']} fixtures; kernelguard flags {counts[folder, 'kernelguard']}, "
            f"static layer rejects {counts[folder, 'static']}"
        )
    print("flagged by kernelguard, passed by the static layer:", *added or ["none"], sep="\n  ")
    print("honest fixtures kernelguard flags:", *false_rejects or ["none"], sep="\n  ")


if __name__ == "__main__":
    main()
