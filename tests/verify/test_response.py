from tritonrl.verify.response import parse_response


def test_plan_then_fenced_code():
    text = "Plan: one program per row.\n\n```python\nclass ModelNew:\n    pass\n```\ntrailing words"
    parsed = parse_response(text)
    assert parsed.plan == "Plan: one program per row."
    assert parsed.code == "class ModelNew:\n    pass\n"
    assert text[parsed.code_start : parsed.code_end] == parsed.code


def test_last_python_block_wins_and_other_languages_are_ignored():
    text = "draft\n```python\nold = 1\n```\nthen\n```bash\nls\n```\nfinal\n```py\nnew = 2\n```\n"
    parsed = parse_response(text)
    assert parsed.code == "new = 2\n"
    assert "old = 1" in parsed.plan


def test_bare_python_file_is_code_without_plan():
    source = "import torch\n\nclass ModelNew(torch.nn.Module):\n    pass\n"
    parsed = parse_response(source)
    assert parsed.plan == "" and parsed.code == source


def test_text_without_code_is_all_plan():
    parsed = parse_response("I think we should tile the matmul.")
    assert parsed.code is None and parsed.code_start == -1
    assert parsed.plan == "I think we should tile the matmul."


def test_bare_module_without_modelnew_is_still_code():
    source = "import torch\n\nclass Net(torch.nn.Module):\n    pass\n"
    assert parse_response(source).code == source
