"""Multi-turn distillation: a teacher answer the filter rejects gets the verifier's feedback and is asked again.

The teacher is a scripted OpenAI-compatible server: a wrong kernel (ReLU written as min) to the first prompt, the
reference answer once the request holds its earlier answer. With `teacher.repair_turns=1` the filter accepts the
repaired answer, records the conversation it answered, counts it in the manifest, and augment trains on it.
"""

import pytest

from tritonrl.artifacts.datasets_io import read_dataset, read_manifest
from tritonrl.artifacts.store import ArtifactStore
from tritonrl.config import load_config
from tritonrl.problems.loaders import load_builtin
from tritonrl.stages import augment, distill
from tritonrl.stages import filter as filter_stage

from tests.support.openai_server import Reply, ScriptedServer, chat_body


@pytest.fixture
def relu_teacher(tmp_path):
    (problem,) = [p for p in load_builtin() if p.name == "01_relu.py"]
    (tmp_path / problem.name).write_text(problem.source)
    broken = problem.reference_response.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")
    assert broken != problem.reference_response

    def script(i):
        fixed = any(m["role"] == "assistant" for m in server.requests[i].body["messages"])
        return Reply(body=chat_body(problem.reference_response if fixed else broken))

    server = ScriptedServer(script)
    yield tmp_path, server
    server.close()


def _config(folder, server, repair_turns):
    config, _ = load_config(
        "tiny",
        overrides=[
            f"problems.source={folder}",
            "teacher.kind=openai",
            f"teacher.endpoint={server.endpoint}",
            "teacher.model=policy",
            "teacher.samples_per_task=1",
            f"teacher.repair_turns={repair_turns}",
            "verify.trials=1",
            "augment.variants_per_task=1",
        ],
    )
    return config


@pytest.mark.slow
def test_a_rejected_teacher_answer_repaired_after_feedback_becomes_a_multi_turn_sft_pair(relu_teacher, tritonrl_home):
    folder, server = relu_teacher
    config = _config(folder, server, repair_turns=1)
    samples = distill.run(config).dataset.uri
    result = filter_stage.run(config, samples)
    store = ArtifactStore()
    (accepted,) = read_dataset(store, result.accepted.uri)
    assert accepted["turns"] == 2 and accepted["first_reasons"] == ["wrong_result"]
    assert [m["role"] for m in accepted["conversation"]] == ["system", "user", "assistant", "user"]
    assert (
        "tl.minimum" in accepted["conversation"][2]["content"]
        and "[wrong_result]" in accepted["conversation"][3]["content"]
    )
    assert "tl.maximum(x, 0.0)" in accepted["response"]
    assert read_manifest(store, result.accepted.uri)["counts"]["repaired"] == {"2": 1}
    assert len(server.requests) == 2  # the first answer and one repair turn

    pairs = read_dataset(store, augment.run(config, result.accepted.uri).pairs.uri)
    multi = [p for p in pairs if len(p["prompt"]) == 4]
    assert (
        len(multi) == 1
        and multi[0]["prompt"] == accepted["conversation"]
        and multi[0]["response"] == accepted["response"]
    )
    assert any(len(p["prompt"]) == 2 and p["response"] == accepted["response"] for p in pairs)  # and the plain prompt


@pytest.mark.slow
def test_without_repair_turns_the_rejected_answer_stays_rejected_and_the_records_keep_their_columns(
    relu_teacher, tritonrl_home
):
    folder, server = relu_teacher
    config = _config(folder, server, repair_turns=0)
    result = filter_stage.run(config, distill.run(config).dataset.uri)
    assert result.accepted.rows == 0 and result.reasons == {"wrong_result": 1}
    (rejected,) = read_dataset(ArtifactStore(), result.rejected.uri)
    assert "turns" not in rejected and "conversation" not in rejected
    assert len(server.requests) == 1
