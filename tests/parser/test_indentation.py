"""Indentation as Python reads it (SYN-indent-1): a dedent must return to an enclosing
level, and tabs must not make the levels depend on the tab width."""
from __future__ import annotations

import pytest

from relax_ref.errors import ParseError
from relax_ref.parser.builder import parse

HEAD = '@R.function\ndef f(x: R.Tensor((2,), "float32")):\n'


@pytest.mark.parametrize("body, line, column", [
    ("        y = x\n    return y\n", 4, 5),
    ("    y = x\n  return y\n", 4, 3),
])
def test_a_dedent_to_no_enclosing_level_is_an_error(body, line, column):
    with pytest.raises(ParseError, match="unindent does not match any outer indentation "
                                         "level") as err:
        parse(HEAD + body)
    assert err.value.rule == "SYN-indent-1"
    assert (err.value.span.line, err.value.span.column) == (line, column)


def test_a_class_member_dedented_to_no_level_is_an_error():
    text = ('@I.ir_module\nclass Module:\n    @R.function\n    def f(x: R.Tensor((2,), '
            '"float32")):\n        return x\n  @R.function\n  def g(x: R.Tensor((2,), '
            '"float32")):\n      return x\n')
    with pytest.raises(ParseError, match="unindent") as err:
        parse(text)
    assert err.value.span.line == 6


def test_tabs_and_spaces_that_depend_on_the_tab_width_are_an_error():
    body = "\ty = x\n        return y\n"  # a tab is 8 columns or 1: Python refuses
    with pytest.raises(ParseError, match="inconsistent use of tabs and spaces") as err:
        parse(HEAD + body)
    assert err.value.span.line == 4


def test_consistent_tabs_read_as_levels():
    parse(HEAD + "\ty = x\n\treturn y\n")
