"""The error kinds of relax_ref, each pointing at a source span (spec/semantics.md).

This module is a leaf: it depends only on ``ir.span`` so that every layer, the parser
included, can raise these errors.
"""
from __future__ import annotations

from relax_ref.ir.span import Span


class RelaxError(Exception):
    """Base of all errors about the user's program. ``rule`` names the spec rule that
    was violated (e.g. ``SYN-indent-1``) when there is one."""

    kind = "error"

    def __init__(self, message: str, span: Span | None = None, *, rule: str | None = None,
                 source_text: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.rule = rule
        self.source_text = source_text

    def __str__(self) -> str:
        return _headline(self.kind, self.message, self.span, self.rule)

    def render(self) -> str:
        """The message as ``FILE:LINE:COL: error: ...`` followed by the source line and a
        caret under the column, when the source text is known."""
        return _with_source_line(str(self), self.span, self.source_text)


def _headline(kind: str, message: str, span: Span | None, rule: str | None) -> str:
    """``FILE:LINE:COL: kind: message [RULE]``, the parts that are known."""
    where = f"{span}: " if span is not None else ""
    return f"{where}{kind}: {message}" + (f" [{rule}]" if rule else "")


def _with_source_line(text: str, span: Span | None, source_text: str | None) -> str:
    if span is None or source_text is None:
        return text
    lines = source_text.splitlines()
    if not 1 <= span.line <= len(lines):
        return text
    line = lines[span.line - 1]
    width = 1
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    caret = " " * (span.column - 1) + "^" * max(1, min(width, len(line) + 1))
    return f"{text}\n    {line}\n    {caret}"


class RelaxWarning(UserWarning):
    """A program that is allowed but will fail at run time where it gets there (a return
    annotation no value of the body can satisfy, SI-ann-4). Issued with
    ``warnings.warn_explicit`` at its place; located and rendered like an error."""

    def __init__(self, message: str, span: Span | None = None, *, rule: str | None = None):
        super().__init__(message)
        self.message = message
        self.span = span
        self.rule = rule

    def __str__(self) -> str:
        return _headline("warning", self.message, self.span, self.rule)

    def render(self, source_text: str | None = None) -> str:
        return _with_source_line(str(self), self.span, source_text)


class ParseError(RelaxError):
    """Malformed text: not in the grammar, or not a construct TVMScript allows there."""

    kind = "error"


class WellFormedError(RelaxError):
    """Ill-formed IR (scoping, dataflow purity, undefined symbolic variables, ...)."""


class StructInfoError(RelaxError):
    """An annotation contradicts what deduction proves, or an op's operands are invalid."""


# The run-time check kinds a TIR assert may name to trap as an op's own check
# (EXEC-tir-assert-2): LegalizeOps' guards (TE-leg-7) keep the op's kind.
GUARD_KINDS = frozenset({"shape_mismatch", "invalid_value", "index_out_of_bounds",
                         "division_by_zero"})


def assert_check_kind(message: str) -> tuple[str, str]:
    """The check kind and rule of a failed TIR assert with ``message``: the op check's
    kind it begins with (``"shape_mismatch: ..."``, EXEC-tir-assert-2), else
    ``tir_assert`` (EXEC-tir-assert-1). The interpreter and the device host agree."""
    kind, _, _ = message.partition(": ")
    if kind in GUARD_KINDS:
        return kind, "EXEC-tir-assert-2"
    return "tir_assert", "EXEC-tir-assert-1"


def same_check(expected: str, found: str, found_rule: str | None) -> bool:
    """Whether a trap of kind ``found`` (by rule ``found_rule``), after a pass, is the
    check ``expected`` before it (CONF-pass-2, PASS-verify-5): the same kind, or an op's
    negative result dimension (``invalid_value``) found where a lowered call allocates
    the result (EXEC-sym-1)."""
    return found == expected or (expected == "invalid_value" and found == "shape_mismatch"
                                 and found_rule == "EXEC-sym-1")


class RuntimeCheckError(RelaxError):
    """A check the language makes at run time failed; ``check`` says which
    (``match_cast``, ``shape_mismatch``, ``signature``, ...)."""

    def __init__(self, message: str, span: Span | None = None, *, check: str,
                 rule: str | None = None, source_text: str | None = None):
        super().__init__(message, span, rule=rule, source_text=source_text)
        self.check = check


class ResourceError(RelaxError):
    """A configured limit (tensor size, recursion depth, ...) would be exceeded."""


class CheckError(RelaxError):
    """Every problem one check of a module found (``relax_ref.check``): ``errors`` holds
    them in source order; the span and rule are the first one's."""

    def __init__(self, errors: list[RelaxError]):
        first = errors[0]
        more = len(errors) - 1
        tail = f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""
        super().__init__(first.message + tail, first.span, rule=first.rule,
                         source_text=first.source_text)
        self.errors = list(errors)

    def render(self) -> str:
        for err in self.errors:
            err.source_text = err.source_text or self.source_text
        return "\n".join(err.render() for err in self.errors)
