"""`relax-ref graph` (spec/api.md CLI-graph-1): the dataflow graph as DOT text, fused
groups boxed and named after their kernel."""
from __future__ import annotations

import shutil


from relax_ref.cli import main
from tests.conftest import REPO

MLP = str(REPO / "examples" / "mlp.py")


def test_the_graph_has_a_node_per_binding_and_edges_from_what_it_reads(capsys):
    assert main(["graph", MLP]) == 0
    dot = capsys.readouterr().out
    assert dot.startswith('digraph "main" {') and dot.rstrip().endswith("}")
    assert "R.matmul" in dot and "shape=ellipse" in dot and "doublecircle" in dot
    assert "->" in dot and "subgraph" not in dot


def test_fused_groups_are_boxes_named_after_their_kernel(tmp_path, capsys):
    out = tmp_path / "g.dot"
    assert main(["graph", MLP, "--fuse", "-o", str(out)]) == 0
    dot = out.read_text()
    assert "subgraph cluster_1" in dot and 'label="fused_' in dot
    assert "R.call_tir" in dot


def test_svg_needs_graphviz_and_a_bad_entry_is_an_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["graph", MLP, "-o", str(tmp_path / "g.svg")]) == 2
    assert "Graphviz" in capsys.readouterr().err
    assert main(["graph", MLP, "--entry", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
