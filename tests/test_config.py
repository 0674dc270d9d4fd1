import pytest

from tritonrl.config import ConfigError, describe, dump_config, load_config, state_dir


def test_tiny_is_the_default_profile_and_runs_offline():
    config, _ = load_config()
    assert config.profile == "tiny"
    assert config.teacher.kind == "reference"
    assert config.verify.device == "cpu"
    assert config.student.base_model == "tiny-local"


def test_gpu_profile_uses_qwen3_student_and_gpt_oss_teacher_endpoint():
    config, sources = load_config("gpu")
    assert config.student.base_model == "Qwen/Qwen3-8B"
    assert config.teacher.kind == "openai"
    assert config.teacher.model == "openai/gpt-oss-120b"
    assert config.teacher.endpoint.startswith("http")
    assert config.verify.device == "cuda"
    assert sources["student.base_model"] == "profile gpu"


def test_yaml_file_then_overrides_win_in_that_order(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("profile: gpu\nteacher:\n  samples_per_task: 4\n  temperature: 1\nverify:\n  trials: 7\n")
    config, sources = load_config(None, path, ["verify.trials=9", "problems.levels=[1, 2]"])
    assert config.profile == "gpu"
    assert config.teacher.samples_per_task == 4
    assert config.teacher.temperature == 1.0 and isinstance(config.teacher.temperature, float)
    assert config.verify.trials == 9
    assert config.problems.levels == (1, 2)
    assert sources["teacher.samples_per_task"] == str(path)
    assert sources["verify.trials"] == "override"
    lines = describe(config, sources)
    assert "verify.trials = 9  (override)" in lines
    assert any(line.startswith("storage.s3_endpoint_url = ''  (default)") for line in lines)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["teacher.samples=3"], "unknown key teacher.samples"),
        (["teachr.kind=openai"], "unknown section 'teachr'"),
        (["teacher.kind=gpt"], "is not one of"),
        (["verify.trials=many"], "should be of type int"),
        (["grpo.learning_rate=fast"], "grpo.learning_rate='fast' should be a number"),
        (["verify.trials"], "should look like section.key=value"),
    ],
)
def test_bad_overrides_fail_fast_with_the_offending_key(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config("tiny", None, overrides)


def test_exponent_floats_without_a_dot_are_numbers():
    config, _ = load_config("tiny", None, ["grpo.learning_rate=2e-05", "sft.learning_rate=1e-3"])
    assert config.grpo.learning_rate == 2e-05 and config.sft.learning_rate == 1e-3


def test_unknown_profile_and_missing_file_are_named(tmp_path):
    with pytest.raises(ConfigError, match="unknown profile 'huge'"):
        load_config("huge")
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(None, tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("teacher: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(None, bad)


def test_state_dir_defaults_to_dot_tritonrl_and_honours_env(monkeypatch, tmp_path):
    monkeypatch.delenv("TRITONRL_HOME")
    monkeypatch.chdir(tmp_path)
    assert state_dir() == tmp_path / ".tritonrl"
    monkeypatch.setenv("TRITONRL_HOME", str(tmp_path / "elsewhere"))
    config, _ = load_config()
    assert config.artifact_root == (tmp_path / "elsewhere" / "artifacts").as_uri()
    assert config.tracking_uri == f"sqlite:///{tmp_path / 'elsewhere' / 'mlflow.db'}"


def test_resolved_config_round_trips_through_yaml(tmp_path):
    config, _ = load_config("gpu", None, ["teacher.samples_per_task=3"])
    path = tmp_path / "saved.yaml"
    path.write_text(dump_config(config))
    again, _ = load_config(None, path)
    assert again == config


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("grpo.clip_eps=1.5", r"grpo.clip_eps=1.5 must be in \(0, 1\)"),
        ("grpo.group_size=1", "grpo.group_size=1 must be >= 2"),
        ("teacher.samples_per_task=0", "teacher.samples_per_task=0 must be >= 1"),
        ("teacher.kind=openai", "teacher.kind=openai needs teacher.endpoint"),
        ("sft.nnodes=2", "sft.nnodes=2 needs sft.rdzv_endpoint"),
        ("verify.judge_url=http://judge:8000/v1", "verify.judge_url needs verify.judge_model"),
        ("verify.judge_url=judge:8000", "verify.judge_url='judge:8000' is not an http"),
    ],
)
def test_a_setting_that_cannot_work_is_refused_when_the_config_loads(override, message):
    with pytest.raises(ConfigError, match=message):  # not after the stages before the one that reads it
        load_config("tiny", overrides=[override])
