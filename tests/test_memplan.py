"""relax-ref memplan: allocations before and after planning with symbolic sizes, totals
and peaks at chosen values, the SVG timeline (CLI-memplan-*)."""
from __future__ import annotations

import xml.dom.minidom

from relax_ref.cli import main
from relax_ref.memplan import memplan
from relax_ref.parser.builder import parse

SOURCE = '''
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        with R.dataflow():
            a = R.exp(x)
            b = R.add(a, a)
            c = R.nn.softmax(b)
            d = R.multiply(c, b)
            e = R.sum(d, axis=[1], keepdims=True)
            f = R.add(e, d)
            R.output(f)
        return f
'''


def test_totals_at_the_bound_and_at_a_chosen_value():
    (report,) = memplan(parse(SOURCE, "m"), {"n": 1024})
    # after fusion: b, d, f of n * 16 bytes and e of n * 4; b and e share a storage
    assert report.before.total({"n": 1024}) == 3 * 16384 + 4096
    assert report.after.total({"n": 1024}) == 2 * 16384 + 16384  # two storages and f
    assert report.before.total({"n": 10}) == 3 * 160 + 40
    assert report.after.total({"n": 10}) == 2 * 16384 + 160  # storages sized at the bound
    assert report.problems == []


def test_the_command_prints_both_sides_and_writes_svg(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(SOURCE)
    svg = tmp_path / "plan.svg"
    assert main(["memplan", str(src), "--bound", "n=1024", "--at", "n=512",
                 "-o", str(svg)]) == 0
    out = capsys.readouterr().out
    assert "before planning: 4 allocations" in out
    assert "after planning: 2 storages, 1 allocation of its own" in out
    assert "n * 16 B = 8.0 KiB" in out and "plan proved safe" in out
    doc = xml.dom.minidom.parse(str(svg))
    assert len(doc.getElementsByTagName("rect")) == 4  # b, e | d | f


def test_without_a_bound_sizes_stay_symbolic(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(SOURCE)
    assert main(["memplan", str(src)]) == 0
    out = capsys.readouterr().out
    assert "total symbolic" in out and "storage storage        n * 16 B" in out


def test_usage_errors(tmp_path, capsys):
    src = tmp_path / "m.py"
    src.write_text(SOURCE)
    assert main(["memplan", str(src), "--bound", "n=x"]) == 2
    assert main(["memplan", str(src), "--entry", "nope"]) == 2
    assert main(["memplan", str(src), "-o", str(tmp_path / "plan.png")]) == 2
    err = capsys.readouterr().err
    assert "not an integer" in err and "nope" in err and ".svg" in err
