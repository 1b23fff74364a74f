"""The README's Python example runs as written and prints what it claims."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[3] / "README.md"


def test_readme_example_runs_as_written(capsys):
    text = README.read_text()
    section = text[text.index("## Python: lazy linear algebra") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    lazy, numpy = float(out[0]), float(out[1])
    assert abs(lazy - numpy) <= 1e-9 * abs(numpy)
    assert any("wsloss" in line for line in out)  # explain(): the fused loss ran
    assert float(out[-1]) > 0
