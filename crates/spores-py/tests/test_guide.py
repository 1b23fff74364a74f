"""The Python guide's example (docs/guide-python.md) runs as written and prints what it claims."""

import pathlib
import re

GUIDE = pathlib.Path(__file__).resolve().parents[3] / "docs" / "guide-python.md"


def test_the_guide_example_runs_as_written(capsys):
    text = GUIDE.read_text()
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    exec(compile(code, "guide-python.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    lazy, numpy = float(out[0]), float(out[1])
    assert abs(lazy - numpy) <= 1e-9 * abs(numpy)
    assert any("wsloss" in line for line in out)  # explain(): the fused loss ran
    assert float(out[-1]) > 0
