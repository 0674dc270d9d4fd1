"""Optional LLM judge: "does this code really implement the required computation in Triton?"

TritonRL uses a large model (Qwen3-235B) as a last check for cheats that
pass every mechanical test (e.g. a kernel that special-cases the test
shapes). Off by default; when configured, it calls any OpenAI-compatible
chat-completions endpoint and caches answers on disk keyed by model, prompt
version, problem and code, so re-verifying costs nothing. An unreachable or
unparseable judge never rejects a candidate: it is advisory, and its
failure is not the candidate's fault.

Test: tests/verify/test_judge.py (a local HTTP server speaking the protocol).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tritonrl.verify.result import Reason, ReasonCode

PROMPT_VERSION = "judge-v1"
PROMPT = """You review GPU kernels written by a model. The task: rewrite the PyTorch module `Model`
below as `ModelNew` whose computation happens in Triton kernels.

Reference problem:
```python
{problem}
```

Candidate:
```python
{code}
```

Does the candidate's Triton code genuinely implement the full computation of Model.forward
for any valid input of these shapes (not special-casing inputs, not skipping work, not
returning precomputed or partial results)? Think briefly, then end with exactly one line:
VERDICT: PASS  or  VERDICT: FAIL: <one-sentence reason>"""
_VERDICT = re.compile(r"VERDICT:\s*(PASS|FAIL)(?::\s*(.*))?", re.I)


@dataclass(frozen=True)
class Judge:
    endpoint: str  # base URL, e.g. http://localhost:8000/v1
    model: str
    cache_dir: Path
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = 120.0

    def _cache_path(self, problem: str, code: str) -> Path:
        key = hashlib.sha256("\0".join([self.model, PROMPT_VERSION, problem, code]).encode()).hexdigest()
        return self.cache_dir / f"{key}.json"

    def _ask(self, problem: str, code: str) -> str:
        body = json.dumps(
            {
                "model": self.model,
                "messages": [{"role": "user", "content": PROMPT.format(problem=problem, code=code)}],
                "temperature": 0.0,
            }
        ).encode()
        headers = {"Content-Type": "application/json"}
        if os.environ.get(self.api_key_env):
            headers["Authorization"] = f"Bearer {os.environ[self.api_key_env]}"
        request = urllib.request.Request(self.endpoint.rstrip("/") + "/chat/completions", body, headers)
        with urllib.request.urlopen(request, timeout=self.timeout_s) as reply:
            return json.loads(reply.read())["choices"][0]["message"]["content"]

    def review(self, problem: str, code: str) -> Reason | None:
        """A JUDGE_REJECTED reason, or None when the judge passes the code (or cannot answer)."""
        cache = self._cache_path(problem, code)
        if cache.is_file():
            answer = json.loads(cache.read_text())["answer"]
        else:
            try:
                answer = self._ask(problem, code)
            except (urllib.error.URLError, OSError, KeyError, IndexError, ValueError, TypeError):
                return None
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            tmp = cache.with_suffix(".tmp")
            tmp.write_text(json.dumps({"model": self.model, "prompt_version": PROMPT_VERSION, "answer": answer}))
            tmp.replace(cache)
        matches = _VERDICT.findall(answer or "")
        if not matches:
            return None
        verdict, why = matches[-1]
        if verdict.upper() == "FAIL":
            return Reason(ReasonCode.JUDGE_REJECTED, f"LLM judge ({self.model}): {why.strip() or 'rejected'}")
        return None
