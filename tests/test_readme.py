"""The README's Quick start is two command lines, and CI runs the second one."""
from __future__ import annotations

from tests.conftest import REPO


def _quick_start_lines() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1]
    block = section.split("```", 2)[1]
    return [line for line in block.splitlines() if line.strip()]


def test_quick_start_has_two_commands():
    lines = _quick_start_lines()
    assert len(lines) == 2
    assert "relax-ref" in lines[0]
    assert "pytest" in lines[1]


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text()
    assert _quick_start_lines()[1] in ci.splitlines()


def test_the_python_api_example_runs_as_written(capsys):
    text = (REPO / "README.md").read_text()
    section = text.split("## Python API", 1)[1]
    code = section.split("```python", 1)[1].split("```", 1)[0]
    exec(compile(code, "README.md", "exec"), {})  # the README's own example, verbatim
    out = capsys.readouterr().out
    assert "[0. 2. 4.]" in out and "runs compared" in out
    assert "unused" not in out.split("[0. 2. 4.]")[1].split("runs compared")[0]
