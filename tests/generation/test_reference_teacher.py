"""ReferenceTeacher answers with the problem's reference response; build_teacher picks it by default."""

from __future__ import annotations

import dataclasses

import pytest

from tritonrl.config import ConfigError, TeacherConfig
from tritonrl.generation import ReferenceTeacher, build_teacher
from tritonrl.problems.loaders import load_builtin
from tritonrl.prompts import build_messages


@pytest.fixture(scope="module")
def problem():
    return load_builtin()[0]


def test_builtin_problem_gets_its_reference_n_times(problem):
    teacher = ReferenceTeacher()
    completions = teacher.generate(problem, build_messages(problem.source), n=3, temperature=1.0, max_tokens=64)
    assert teacher.id == "reference"
    assert len(completions) == 3
    for c in completions:
        assert (c.text, c.error, c.attempts) == (problem.reference_response, None, 1)
        assert c.latency_s >= 0
    again = teacher.generate(problem, build_messages(problem.source), n=3, temperature=0.0, max_tokens=8)
    assert [c.text for c in again] == [c.text for c in completions]  # deterministic, sampling knobs ignored


def test_every_builtin_problem_has_an_answer():
    teacher = ReferenceTeacher()
    for problem in load_builtin():
        [c] = teacher.generate(problem, build_messages(problem.source), n=1, temperature=1.0, max_tokens=64)
        assert c.error is None and "ModelNew" in c.text, problem.name


@pytest.mark.parametrize("reference", [None, "", "   \n"])
def test_problem_without_a_reference_gives_recorded_failures(problem, reference):
    bare = dataclasses.replace(problem, reference_response=reference, origin="kernelbench:level1/19_ReLU.py")
    completions = ReferenceTeacher().generate(bare, build_messages(bare.source), n=2, temperature=1.0, max_tokens=64)
    assert len(completions) == 2
    for c in completions:
        assert c.text is None
        assert "kernelbench:level1/19_ReLU.py" in c.error and "no reference response" in c.error
        assert "teacher.kind=openai" in c.error


def test_zero_samples(problem):
    assert ReferenceTeacher().generate(problem, [], n=0, temperature=1.0, max_tokens=1) == []


def test_build_teacher_default_is_the_reference_teacher():
    assert isinstance(build_teacher(TeacherConfig()), ReferenceTeacher)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"samples_per_task": 0}, "samples_per_task"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"temperature": -0.5}, "temperature"),
        ({"kind": "anthropic"}, "not one of"),
    ],
)
def test_build_teacher_rejects_unusable_configs(changes, message):
    with pytest.raises(ConfigError, match=message):
        build_teacher(dataclasses.replace(TeacherConfig(), **changes))
