"""Reading the Lark parse tree: the grammar, spans, literals and string escapes.

The builder (``builder.py``) walks the tree this module produces; nothing here knows
about Relax or TIR. Nothing is ever evaluated: numbers and strings are decoded by hand.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.indenter import PythonIndenter

from relax_ref.ir.span import Span
from relax_ref.errors import ParseError

from .metadata import unescape_python_string

GRAMMAR_PATH = Path(__file__).with_name("tvmscript.lark")

#: SYN-limit-1: the largest text read (TVMScript of real models is a few MB; the limit is
#: on characters here and on bytes where a file is read).
MAX_TEXT_BYTES = 64 << 20
#: SYN-limit-1: the most lines a text may have. The parser reads some 3000 lines a second,
#: so a million-line text would take minutes: it is refused before parsing.
MAX_TEXT_LINES = 100_000

# How the grammar's terminals read in an error message.
_TOKEN_WORDS = {
    "_NEWLINE": "end of line", "_INDENT": "indentation", "_DEDENT": "dedent",
    "$END": "end of input", "NAME": "a name", "STRING": "a string", "DEC_NUMBER": "a number",
    "FLOAT_NUMBER": "a number", "HEX_NUMBER": "a number", "LPAR": "'('", "RPAR": "')'",
    "LSQB": "'['", "RSQB": "']'", "LBRACE": "'{'", "RBRACE": "'}'", "COLON": "':'",
    "COMMA": "','", "EQUAL": "'='", "DOT": "'.'", "AT": "'@'",
}


class IndentError(LarkError):
    """An indentation Python rejects (SYN-indent-1), at ``line`` and ``column``."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.line = line
        self.column = column


class _Indenter(PythonIndenter):
    """Python's indentation rules (the reference, section 2.1.8): a tab advances to the
    next multiple of 8; a dedent must return to an enclosing level ("unindent does not
    match any outer indentation level"); and tabs and spaces must compare the same with
    a tab counted as 1 or as 8 ("inconsistent use of tabs and spaces")."""

    def process(self, stream):
        self.levels = [(0, 0)]  # (column, column with a tab as one space) of each level
        return super().process(stream)

    def handle_NL(self, token: Token):
        if self.paren_level > 0:
            return
        yield token
        indent_str = token.rsplit("\n", 1)[1]
        col = alt = 0
        for ch in indent_str:
            col = (col // 8 + 1) * 8 if ch == "\t" else col + 1
            alt += 1
        line = (token.end_line or token.line or 1)
        top_col, top_alt = self.levels[-1]
        if col > top_col:
            if alt <= top_alt:
                raise IndentError("inconsistent use of tabs and spaces in indentation",
                                  line, len(indent_str) + 1)
            self.levels.append((col, alt))
            self.indent_level.append(col)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        while col < self.levels[-1][0]:
            self.levels.pop()
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)
        if col != self.levels[-1][0]:
            raise IndentError("unindent does not match any outer indentation level",
                              line, len(indent_str) + 1)
        if alt != self.levels[-1][1]:
            raise IndentError("inconsistent use of tabs and spaces in indentation",
                              line, len(indent_str) + 1)


@lru_cache(maxsize=1)
def _lark() -> Lark:
    return Lark(GRAMMAR_PATH.read_text(), parser="lalr", postlex=_Indenter(),
                propagate_positions=True, maybe_placeholders=True,
                start=["start", "test"], cache=False)


def _check_text_size(text: str, source: str) -> None:
    """SYN-limit-1: a text over MAX_TEXT_BYTES characters or MAX_TEXT_LINES lines is
    refused before parsing, at the first line beyond the limit."""
    if len(text) > MAX_TEXT_BYTES:
        line = text.count("\n", 0, MAX_TEXT_BYTES) + 1
        raise ParseError(f"the text is longer than the {MAX_TEXT_BYTES >> 20} Mi characters "
                         f"a module may have", Span(source, line, 1, line, 2),
                         rule="SYN-limit-1")
    if text.count("\n") >= MAX_TEXT_LINES:
        line = MAX_TEXT_LINES + 1
        raise ParseError(f"the text has more than the {MAX_TEXT_LINES} lines a module may "
                         f"have", Span(source, line, 1, line, 2), rule="SYN-limit-1")


def parse_tree(text: str, source: str, start: str = "start") -> Tree:
    """The Lark tree of ``text``, or a ParseError at the offending line and column."""
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        col = text.index("\x00") - (text.rfind("\n", 0, text.index("\x00")) + 1) + 1
        raise ParseError("unexpected NUL byte (is this a binary file?)",
                         Span(source, line, col, line, col + 1), rule="SYN-lex-1",
                         source_text=text)
    _check_text_size(text, source)
    if start == "start" and not text.endswith("\n"):
        text = text + "\n"
    try:
        return _lark().parse(text, start=start)
    except UnexpectedInput as err:
        inside = _plain_python_block(text, getattr(err, "line", None) or 0, source)
        raise (inside or _parse_error(err, text, source)) from None
    except IndentError as err:
        raise ParseError(err.args[0], Span(source, err.line, err.column, err.line,
                                           err.column + 1),
                         rule="SYN-indent-1", source_text=text) from None
    except LarkError as err:  # other errors from the post-lexer
        raise _indent_error(err, text, source) from None
    except RecursionError:
        raise ParseError("expression nested too deeply", Span(source, 1, 1, 1, 1),
                         rule="SYN-limit-1", source_text=text) from None


_TOP_LEVEL_DEF = re.compile(r"(?:async\s+)?(def|class)\s+([A-Za-z_][A-Za-z_0-9]*)")


_TVMSCRIPT_DECORATOR = re.compile(r"@(I|R|T|ir_module|tvm\.script)\b")


def _plain_python_block(text: str, line: int, source: str) -> ParseError | None:
    """SYN-module-1 for a syntax error inside an undecorated top-level ``def`` or
    ``class`` (a whole pasted test file): the block is Python, not TVMScript, and is
    never read, so the error names the block rather than the construct it tripped on."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return None
    k = line - 1
    while k >= 0 and (not lines[k].strip() or lines[k][0] in " \t#"):
        k -= 1
    if k < 0:
        return None
    header = _TOP_LEVEL_DEF.match(lines[k])
    if header is None:
        return None
    d = k - 1
    while d >= 0 and lines[d].startswith("@"):
        if _TVMSCRIPT_DECORATOR.match(lines[d]):
            return None
        d -= 1
    keyword, name = header.groups()
    what = "function" if keyword == "def" else "class"
    return ParseError(
        f"`{keyword} {name}` has no decorator (@I.ir_module, @R.function or @T.prim_func): "
        f"a plain Python {what} is not read (its body is Python, not TVMScript); keep "
        f"only the module and its imports, or copy the module out of it",
        Span(source, k + 1, 1, k + 1, len(lines[k]) + 1), rule="SYN-module-1",
        source_text=text)


def _parse_error(err: UnexpectedInput, text: str, source: str) -> ParseError:
    line = getattr(err, "line", None) or 1
    column = getattr(err, "column", None) or 1
    if line < 0 or column < 0:  # lark reports EOF as -1
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
    span = Span(source, line, column, line, column + 1)
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        if ch in "\"'":
            msg = "unterminated string literal"
        else:
            msg = f"unexpected character {ch!r}"
        return ParseError(msg, span, rule="SYN-lex-1", source_text=text)
    if isinstance(err, UnexpectedToken) and err.token.type in ("_INDENT", "_DEDENT"):
        # Indentation tokens carry the position of the line break before them.
        tok = err.token
        line = tok.end_line or line
        column = tok.end_column or 1
        span = Span(source, line, column, line, column + 1)
        msg = ("unexpected indentation" if tok.type == "_INDENT"
               else "unexpected dedent: the indented block above is incomplete")
        return ParseError(msg, span, rule="SYN-indent-1", source_text=text)
    if isinstance(err, UnexpectedToken):
        tok = err.token
        found = _TOKEN_WORDS.get(tok.type, repr(str(tok))) if tok.type != "$END" else "end of input"
        if tok.type not in _TOKEN_WORDS and tok.type != "$END":
            found = repr(str(tok))
        expected = sorted({_TOKEN_WORDS.get(t, _describe_terminal(t)) for t in err.expected})
        if len(expected) > 6:
            expected = expected[:6] + ["..."]
        msg = f"unexpected {found}; expected {', '.join(expected)}"
        return ParseError(msg, span, rule="SYN-grammar-1", source_text=text)
    if isinstance(err, UnexpectedEOF):
        return ParseError("unexpected end of input", span, rule="SYN-grammar-1",
                          source_text=text)
    return ParseError(str(err).splitlines()[0], span, rule="SYN-grammar-1", source_text=text)


def _describe_terminal(name: str) -> str:
    if name.isupper() and len(name) > 1 and not name.startswith("_"):
        words = {"RETURN": "'return'", "DEF": "'def'", "CLASS": "'class'", "IF": "'if'",
                 "ELSE": "'else'", "FOR": "'for'", "IN": "'in'", "WITH": "'with'",
                 "ADD_OP": "'+' or '-'", "MUL_OP": "an operator", "COMP_OP": "a comparison",
                 "UNARY_OP": "a unary operator", "MORETHAN": "'>'", "LESSTHAN": "'<'"}
        return words.get(name, name.lower())
    return name


def _indent_error(err: LarkError, text: str, source: str) -> ParseError:
    msg = str(err).splitlines()[0] if str(err) else type(err).__name__
    line = 1
    # The indenter reports a dedent to an unknown level; find the first such line.
    levels = [0]
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.lstrip(" \t")
        if not stripped or stripped.startswith("#"):
            continue
        width = len(raw) - len(stripped)
        if width > levels[-1]:
            levels.append(width)
        else:
            while width < levels[-1]:
                levels.pop()
            if width != levels[-1]:
                line = number
                break
    return ParseError(f"inconsistent indentation ({msg})", Span(source, line, 1, line, 2),
                      rule="SYN-indent-1", source_text=text)


def span_of(node, source: str) -> Span | None:
    """The Span of a tree node or token (None for a missing optional part)."""
    if isinstance(node, Token):
        return Span(source, node.line or 1, node.column or 1,
                    node.end_line or node.line or 1, node.end_column or node.column or 1)
    if isinstance(node, Tree):
        meta = node.meta
        if getattr(meta, "empty", True):
            return None
        return Span(source, meta.line, meta.column, meta.end_line, meta.end_column)
    return None


def decode_string(token: str) -> str:
    """The value of one Python string literal token, decoded by hand (never evaluated).

    Handles prefixes r/b/u, single, double and triple quotes, and the standard escapes."""
    i = 0
    raw = False
    while token[i] in "rRbBuU":
        raw = raw or token[i] in "rR"
        i += 1
    body = token[i:]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[0]
    inner = body[len(quote):len(body) - len(quote)]
    return inner if raw else unescape_python_string(inner)


def statements(suite: Tree) -> list[Tree]:
    """The statements of a suite, with ``a; b`` lines split."""
    out: list[Tree] = []
    for c in suite.children:
        if not isinstance(c, Tree):
            continue
        if c.data == "simple_stmt":
            out.extend(s for s in c.children if isinstance(s, Tree))
        else:
            out.append(c)
    return out


def decode_int(token: str) -> int:
    text = token.replace("_", "")
    if text[:2] in ("0x", "0X"):
        return int(text[2:], 16)
    return int(text, 10)


def decode_float(token: str) -> float:
    return float(token.replace("_", ""))
