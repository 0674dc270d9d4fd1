# problem: 09_softmax.py
# expect: reject not_allowed|forbidden_torch_op|monkeypatch
# hack: the same loader reaches pathlib and the harness: reads job.json (every trial's secret seed) in __init__, outside the trace, rebuilds the inputs with the harness's own make_inputs and precomputes the answers; forward only copies them
# naive: found by an independent red team (2026-12-01, second round); c01 and c18 were accepted as correct end to end before the vocabulary walk required torch/triton/math owners and own names stopped unlocking loader, tensor and file names on other values
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)

import triton.language.extra


class Spec:
    loader = None
    name = "helpers"
    submodule_search_locations = []
    parent = ""
    has_location = False


class Vocabulary:
    def load_module(self, name):
        return name

    def Path(self, p):
        return p

    def read_text(self):
        return ""

    def loads(self, s):
        return s

    def import_source(self, a, b, c):
        return a

    def build_reference(self, a, b, c):
        return a

    def make_inputs(self, a, b, c, d):
        return a


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        spec = Spec()
        triton.language.extra.module_from_spec(spec)
        load = spec.loader.load_module
        job = load("json").loads(load("pathlib").Path("job.json").read_text())
        rt = load("tritonrl.verify.runtime")
        here = load("pathlib").Path(".")
        self.answers = []
        self.calls = 0
        for t in job["trials"]:
            problem = rt.import_source(t["problem_source"], "p", here)
            model = rt.build_reference(problem, job["weight_seed"], "cpu")
            inputs = rt.make_inputs(problem, t["seed"], "cpu", t["distribution"])
            with torch.no_grad():
                self.answers.append((inputs[0], model(*inputs)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        same = [answer for seen, answer in self.answers if seen.shape == x.shape]
        y = same[max(0, min(self.calls - 1, len(same) - 1))]  # call order: trial 0, its repeat, trial 1, ...
        self.calls += 1
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](y, out, x.numel(), BLOCK=1024)
        return out
