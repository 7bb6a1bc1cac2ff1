"""How much of TVM's own Relax test suite relax_ref reads and checks (issue 17).

Three steps, each cached under ``--out`` (default /tmp/corpus):

1. *Extract.* Every ``tests/python/relax/**.py`` of a TVM git directory is read with
   ``git show`` and walked with Python's ``ast`` (this is a measurement tool reading TVM's
   files; relax_ref's parser never evaluates anything). Every class decorated with an
   ``ir_module`` decorator, in any spelling and at any depth, is one module. Its
   *hand-written form* is what a user pastes: the file's ``tvm`` import lines that the
   class uses, then the class source with its decorators, dedented.
2. *Build with TVM.* Each hand-written form is imported as a file in a worker process
   (two workers, a timeout per module; TVM may crash or hang) and ``mod.script()`` is its
   *TVM-printed form*. Modules TVM cannot build on their own (names from the enclosing
   test, helpers, parametrize values, or TVM raises) are excluded from every rate and
   counted with their reasons. TVM's ``well_formed`` verdict and the decorator's
   ``check_well_formed=False`` mark modules that our check is expected to reject.
3. *Measure relax_ref* in this process on both forms: parse (``parser.builder.parse``),
   check (``relax_ref.check``, then print, as ``relax-ref check`` does), and the round
   trip of a checked module (our printing reads back, checks, and is structurally equal).
   Exceptions other than RelaxError are crashes and are listed on their own. Ops we do
   not register and modules marked ill-formed are counted apart from the check rate.

    python bench/tvm_corpus.py [--tvm-repo GITDIR] [--out DIR] [--measure-only]

The table, the failure categories (by normalized message and by rule ID, each with
examples and the source line the error points at), the modules only the hand-written
form fails, our verdict on each ill-formed module and the reasons for exclusion are
printed and written to ``<out>/report.md``; each run adds a line to
``<out>/history.json``, shown in the next report.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import json
import multiprocessing
import multiprocessing.connection
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_TVM_REPO = "/work/.mirror/apache+tvm/repo"
SUITE = "tests/python/relax"
META_OMITTED = "# Metadata omitted."  # TVM's note when it printed no metadata section
TVM_TIMEOUT_S = 120  # per module, in a worker; generous for a loaded 2-core machine
OURS_TIMEOUT_S = 120  # per module and form, in this process


# --------------------------------------------------------------------------- extraction

@dataclass
class Extracted:
    """One IRModule class found in a test file."""

    id: str  # <file stem>__<Class>__<n>: n counts same-named classes in the file
    path: str  # path in the TVM repository
    cls: str
    line: int
    check_well_formed_false: bool
    hand: str  # the hand-written form


def is_ir_module_decorator(dec: ast.expr) -> bool:
    """``@ir_module``, ``@I.ir_module(...)``, ``@tvm.script.ir_module``, ... : any name
    or attribute chain whose last part is ``ir_module``, called or not."""
    if isinstance(dec, ast.Call):
        dec = dec.func
    if isinstance(dec, ast.Name):
        return dec.id == "ir_module"
    return isinstance(dec, ast.Attribute) and dec.attr == "ir_module"


def _disables_check(dec: ast.expr) -> bool:
    if not isinstance(dec, ast.Call):
        return False
    return any(kw.arg == "check_well_formed" and isinstance(kw.value, ast.Constant)
               and kw.value.value is False for kw in dec.keywords)


def _is_tvm_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(a.name == "tvm" or a.name.startswith("tvm.") for a in stmt.names)
    if isinstance(stmt, ast.ImportFrom):
        mod = stmt.module or ""
        return stmt.level == 0 and (mod == "tvm" or mod.startswith("tvm."))
    return False


def _imports_in(body: list[ast.stmt]) -> list[ast.stmt]:
    """The tvm imports among ``body``'s statements, looking into if/try blocks."""
    found = []
    for stmt in body:
        if _is_tvm_import(stmt):
            found.append(stmt)
        elif isinstance(stmt, (ast.If, ast.Try)):
            for part in (stmt.body, getattr(stmt, "orelse", []),
                         getattr(stmt, "finalbody", []),
                         *[h.body for h in getattr(stmt, "handlers", [])]):
                found.extend(_imports_in(part))
    return found


def _dotted_uses(node: ast.AST) -> set[str]:
    """Every name and dotted prefix the class mentions (``tvm``, ``tvm.tir``, ...)."""
    uses = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            parts, base = [sub.attr], sub.value
            while isinstance(base, ast.Attribute):
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name):
                parts.append(base.id)
                parts.reverse()
                uses.update(".".join(parts[:k]) for k in range(1, len(parts) + 1))
        elif isinstance(sub, ast.Name):
            uses.add(sub.id)
    return uses


def _used_import(stmt: ast.stmt, uses: set[str]) -> bool:
    if isinstance(stmt, ast.ImportFrom):
        return any((a.asname or a.name) in uses for a in stmt.names)
    # ``import tvm.testing`` is kept only when the class mentions tvm.testing.
    return any((a.asname in uses) if a.asname else (a.name in uses) for a in stmt.names)


def _class_source(lines: list[str], node: ast.ClassDef) -> str:
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    indent = node.col_offset
    out = []
    for line in lines[first - 1:node.end_lineno]:
        # Lines of a string literal indented less than the class are left as they are.
        out.append(line[indent:] if line[:indent].strip() == "" else line)
    return "\n".join(out).rstrip() + "\n"


def extract(text: str, path: str) -> list[Extracted]:
    """Every ir_module class of one test file, with its hand-written form."""
    tree = ast.parse(text)
    lines = text.splitlines()
    stem = module_stem(path)
    found: list[Extracted] = []
    seen: Counter = Counter()

    def visit(node: ast.AST, scopes: list[list[ast.stmt]]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and any(
                    is_ir_module_decorator(d) for d in child.decorator_list):
                uses = _dotted_uses(child)
                imports = [s for body in scopes for s in _imports_in(body)
                           if _used_import(s, uses)]
                head = "".join(ast.unparse(s) + "\n" for s in imports)
                n = seen[child.name]
                seen[child.name] += 1
                found.append(Extracted(
                    id=f"{stem}__{child.name}__{n}", path=path, cls=child.name,
                    line=child.lineno,
                    check_well_formed_false=any(_disables_check(d)
                                                for d in child.decorator_list),
                    hand=head + ("\n" if head else "") + _class_source(lines, child)))
                continue  # a module class holds no further modules
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, scopes + [child.body])
            else:
                visit(child, scopes)

    visit(tree, [tree.body])
    return found


_DECORATOR_LINE = re.compile(r"^\s*@[\w.]*ir_module\b", re.M)


def decorator_lines(text: str) -> tuple[int, int]:
    """A cross-check of ``extract``: how many lines of the file look like an ir_module
    decorator, and how many of those lie inside string literals (expected printer output
    in TVM's printer tests), which are no module definitions."""
    lines = {text.count("\n", 0, m.start()) + 1 for m in _DECORATOR_LINE.finditer(text)}
    inside: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            inside.update(range(node.lineno + 1, node.end_lineno + 1))
    return len(lines), len(lines & inside)


def module_stem(path: str) -> str:
    """``tests/python/relax/a/test_b.py`` -> ``a.test_b`` (unique across subfolders)."""
    rel = path[len(SUITE) + 1:] if path.startswith(SUITE + "/") else path
    return rel[:-3].replace("/", ".") if rel.endswith(".py") else rel.replace("/", ".")


def suite_files(tvm_repo: str) -> list[tuple[str, str]]:
    git = ["git", f"--git-dir={tvm_repo}"]
    names = subprocess.run(git + ["ls-tree", "-r", "--name-only", "HEAD", SUITE + "/"],
                           check=True, capture_output=True, text=True).stdout.split()
    files = []
    for name in sorted(n for n in names if n.endswith(".py")):
        text = subprocess.run(git + ["show", f"HEAD:{name}"], check=True,
                              capture_output=True, text=True).stdout
        files.append((name, text))
    return files


# --------------------------------------------------------------------------- TVM builds

def _tvm_build(hand_path: str, cls: str, log_path: str) -> dict:
    """In a worker: import the hand-written form as a file, print the module."""
    import importlib.util

    import tvm

    name = "corpus_" + re.sub(r"\W", "_", Path(hand_path).stem)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    saved = os.dup(1), os.dup(2)
    os.dup2(log, 1)
    os.dup2(log, 2)
    try:
        spec = importlib.util.spec_from_file_location(name, hand_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            mod = getattr(module, cls)
            if not isinstance(mod, tvm.IRModule):
                return {"ok": False, "reason": f"not an IRModule: {type(mod).__name__}"}
            printed = mod.script()
            # TVM 0.27 prints tensor constants as metadata references and leaves the
            # metadata out; script(show_meta=True) then crashes (a segfault in
            # ToJSONGraph), so such a printed form is kept but not measured.
            meta_omitted = META_OMITTED in printed
            # TVM 0.27's well_formed raises on the first violation (returns None).
            try:
                tvm.relax.analysis.well_formed(mod)
                wf, wf_note = True, ""
            except Exception as err:  # noqa: BLE001 - TVM's verdict is only a mark
                first = (str(err).strip().splitlines() or [""])[-1]
                wf, wf_note = False, f"{type(err).__name__}: {first}"[:300]
            return {"ok": True, "printed": printed, "tvm_well_formed": wf,
                    "note": wf_note, "meta_omitted": meta_omitted}
        except BaseException as err:  # noqa: BLE001 - every TVM failure is a reason
            sys.stdout.flush()
            sys.stderr.flush()
            return {"ok": False, "reason": _tvm_reason(err, log_path)}
        finally:
            sys.modules.pop(name, None)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(log)
        os.close(saved[0])
        os.close(saved[1])


def _tvm_reason(err: BaseException, log_path: str) -> str:
    """One line: TVM's diagnostic ("error: ...") when there is one, else the exception."""
    try:
        printed = Path(log_path).read_text(errors="replace")
    except OSError:
        printed = ""
    for line in str(err).splitlines() + printed.splitlines():
        if "error:" in line:
            return line[line.index("error:"):].strip()[:300]
    msg = [m for m in str(err).strip().splitlines() if m.strip()]
    return f"{type(err).__name__}: {msg[0] if msg else ''}"[:300]


def _worker(conn, log_path: str) -> None:
    import tvm  # noqa: F401 - imported once per worker

    while True:
        task = conn.recv()
        if task is None:
            return
        conn.send(_tvm_build(task[0], task[1], log_path))


def build_with_tvm(entries: list[dict], out: Path, jobs: int = 2) -> None:
    """Fill each entry's TVM result (``tvm``: ok / excluded and why), two at a time."""
    ctx = multiprocessing.get_context("fork")
    pending = list(entries)
    workers: list[dict] = []

    def start(i: int) -> dict:
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_worker, args=(child, str(out / f"tvm_worker{i}.log")),
                           daemon=True)
        proc.start()
        child.close()
        return {"i": i, "proc": proc, "conn": parent, "entry": None, "since": 0.0}

    def give(w: dict) -> None:
        if pending:
            e = pending.pop(0)
            w["entry"], w["since"] = e, time.monotonic()
            w["conn"].send((str(out / "hand" / f"{e['id']}.py"), e["cls"]))

    def restart(w: dict) -> dict:
        w["proc"].kill()
        w["proc"].join()
        return start(w["i"])

    workers = [start(i) for i in range(jobs)]
    for w in workers:
        give(w)
    done = 0
    while any(w["entry"] is not None for w in workers):
        busy = [w for w in workers if w["entry"] is not None]
        ready = multiprocessing.connection.wait([w["conn"] for w in busy], timeout=5)
        for k, w in enumerate(workers):
            e = w["entry"]
            if e is None:
                continue
            result = None
            if w["conn"] in ready:
                try:
                    result = w["conn"].recv()
                except (EOFError, OSError):
                    w["proc"].join(timeout=5)
                    result = {"ok": False,
                              "reason": f"TVM crashed (exit code {w['proc'].exitcode})"}
            elif time.monotonic() - w["since"] > TVM_TIMEOUT_S:
                result = {"ok": False, "reason": f"TVM timed out after {TVM_TIMEOUT_S} s"}
            if result is None:
                continue
            if not result["ok"]:
                # A failed build may leave TVM's state odd (an open BlockBuilder, ...):
                # the next module gets a fresh worker, and a crash is tried once more.
                workers[k] = w = restart(w)
                if result["reason"].startswith("TVM ") and not e.get("retried"):
                    e["retried"] = True
                    pending.insert(0, e)
                    w["entry"] = None
                    give(w)
                    continue
            _record_tvm(e, result, out)
            done += 1
            if done % 100 == 0:
                print(f"  TVM built {done}/{len(entries)}", file=sys.stderr)
            w["entry"] = None
            give(w)
    for w in workers:
        w["conn"].send(None)
        w["proc"].join(timeout=10)
        if w["proc"].is_alive():
            w["proc"].kill()


def _record_tvm(e: dict, result: dict, out: Path) -> None:
    if result["ok"]:
        (out / "printed" / f"{e['id']}.py").write_text(result["printed"])
        e["tvm"] = "ok"
        e["tvm_well_formed"] = result["tvm_well_formed"]
        e["tvm_note"] = result.get("note", "")
        e["meta_omitted"] = result.get("meta_omitted", False)
    else:
        e["tvm"] = "excluded"
        e["exclude_reason"] = result["reason"]


# --------------------------------------------------------------------------- measuring

class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout()


@dataclass
class Outcome:
    """relax_ref on one form of one module."""

    parsed: bool = False
    parse_error: str = ""
    checked: bool = False
    check_error: str = ""  # the first error, when the check failed
    check_errors: int = 0
    unregistered: list[str] = field(default_factory=list)  # ops we do not know
    error_line: str = ""  # the source line the (first) error points at
    round_trip: bool = False  # our printing of the checked module reads back the same
    round_trip_error: str = ""
    crash: str = ""  # a raw exception from relax_ref: where and what
    crash_stage: str = ""


def _crash_line(err: BaseException) -> str:
    """The innermost relax_ref frame and the exception, e.g.
    ``relax_ref/parser/printer.py:870 in f: KeyError: 'x'``."""
    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if "relax_ref" in f.filename] or frames
    where = ""
    if ours:
        f = ours[-1]
        rel = f.filename.split("relax_ref/", 1)[-1]
        where = f"relax_ref/{rel}:{f.lineno} in {f.name}: "
    last = traceback.format_exception_only(type(err), err)[-1].strip()
    return (where + last)[:400]


def _line_at(text: str, err) -> str:
    span = getattr(err, "span", None)
    lines = text.splitlines()
    if span is None or not 1 <= span.line <= len(lines):
        return ""
    return lines[span.line - 1].strip()[:120]


_UNKNOWN_OP = re.compile(r"unknown operator (R\.[\w.]+)")


def measure_text(text: str, source: str) -> Outcome:
    """Parse ``text``, then check it as ``relax-ref check`` does (``relax_ref.check``:
    well-formedness and normalization) and print the result."""
    from relax_ref import CheckError, RelaxError, check
    from relax_ref.ir.equal import assert_structural_equal
    from relax_ref.parser.builder import parse
    from relax_ref.parser.printer import print_module

    out = Outcome()
    stage = "parse"
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(OURS_TIMEOUT_S)
    try:
        try:
            mod = parse(text, source)
        except RelaxError as err:
            out.parse_error = str(err)
            out.error_line = _line_at(text, err)
            return out
        out.parsed = True
        stage = "check"
        try:
            checked = check(mod)
            printed = print_module(checked)
            errors = []
        except CheckError as err:
            errors = err.errors
        except RelaxError as err:
            errors = [err]
        if errors:
            out.check_errors = len(errors)
            out.check_error = str(errors[0])
            out.error_line = _line_at(text, errors[0])
            out.unregistered = sorted({m.group(1) for e in errors
                                       for m in [_UNKNOWN_OP.search(str(e))] if m})
        else:
            out.checked = True
            # Our printing of the checked module must read back, check again and give
            # the same module.
            stage = "round trip"
            try:
                again = check(parse(printed, source + " (as relax_ref prints it)"))
                assert_structural_equal(checked, again)
                out.round_trip = True
            except (RelaxError, AssertionError) as err:
                out.round_trip_error = str(err)
    except _Timeout:
        out.crash, out.crash_stage = f"no answer within {OURS_TIMEOUT_S} s", stage
    except (Exception, RecursionError) as err:  # noqa: BLE001 - a crash is a finding
        out.crash, out.crash_stage = _crash_line(err), stage
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return out


# --------------------------------------------------------------------------- the report

FORMS = ("hand", "printed")


def normalize_message(msg: str) -> str:
    """A failure's category: the message without its location, quoted names, numbers and
    variable-like names, so that one defect is one line."""
    msg = msg.splitlines()[0] if msg else ""
    msg = re.sub(r"^\S+:\d+:\d+:\s*", "", msg)  # FILE:LINE:COL:
    msg = re.sub(r"^(error|warning):\s*", "", msg)
    msg = re.sub(r"(Undefined variable|Unknown \w+): \S+", r"\1: <name>", msg)
    msg = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", msg)
    msg = re.sub(r"\b(R|T|I)\.[\w.]+", lambda m: m.group(0), msg)  # ops stay named
    msg = re.sub(r"(?<![\w.])\d+(\.\d+)?(e[-+]?\d+)?\b", "N", msg)
    msg = re.sub(r"(?<![.\w])([a-z]+_\w*\d\w*|lv\d*|gv\d*)\b", "<name>", msg)
    return msg.strip()


def rule_of(msg: str) -> str:
    """The rule ID a message names (``[SYN-call-3]``), or ``(none)``."""
    found = re.findall(r"\[([A-Z]+-[\w-]+)\]", msg.splitlines()[0] if msg else "")
    return found[-1] if found else "(none)"


@dataclass
class FormStats:
    total: int = 0
    excluded: int = 0
    meta_omitted: int = 0
    parsed: int = 0
    checked: int = 0
    check_denominator: int = 0
    unregistered: int = 0
    expected_reject: int = 0
    expected_reject_parsed: int = 0
    expected_reject_rejected: int = 0
    accepted_ill_formed: list[str] = field(default_factory=list)
    crashes: list[tuple[str, str, str]] = field(default_factory=list)  # id, stage, line
    parse_fail: dict = field(default_factory=lambda: defaultdict(list))
    check_fail: dict = field(default_factory=lambda: defaultdict(list))
    ops: Counter = field(default_factory=Counter)
    round_trip_fail: dict = field(default_factory=lambda: defaultdict(list))
    rules: dict = field(default_factory=lambda: {"parse": Counter(), "check": Counter()})


def summarize(entries: list[dict], results: dict, form: str) -> FormStats:
    s = FormStats()
    for e in entries:
        if e.get("tvm") != "ok":
            s.excluded += 1
            continue
        if results[e["id"]][form] is None:  # printed without its metadata
            s.excluded += 1
            s.meta_omitted += 1
            continue
        o = Outcome(**results[e["id"]][form])
        s.total += 1
        expected_reject = e["check_well_formed_false"] or e.get("tvm_well_formed") is False
        if o.crash:
            s.crashes.append((e["id"], o.crash_stage, o.crash))
        if not o.parsed:
            if not o.crash:
                s.parse_fail[normalize_message(o.parse_error)].append((e["id"], o.error_line))
                s.rules["parse"][rule_of(o.parse_error)] += 1
            if expected_reject:
                s.expected_reject += 1
            else:
                s.check_denominator += 1
            continue
        s.parsed += 1
        if expected_reject:
            s.expected_reject += 1
            s.expected_reject_parsed += 1
            if o.checked:
                s.accepted_ill_formed.append(e["id"])
            else:
                s.expected_reject_rejected += 1
            continue
        if o.unregistered and not o.checked:
            s.unregistered += 1
            s.ops.update(o.unregistered)
            continue
        s.check_denominator += 1
        if o.checked:
            s.checked += 1
            if not o.round_trip and not o.crash:
                s.round_trip_fail[normalize_message(o.round_trip_error)].append(e["id"])
        elif not o.crash:
            s.check_fail[normalize_message(o.check_error)].append((e["id"], o.error_line))
            s.rules["check"][rule_of(o.check_error)] += 1
    return s


def _pct(a: int, b: int) -> str:
    return f"{100.0 * a / b:.1f}%" if b else "-"


def _categories(title: str, groups: dict, limit: int = 40) -> list[str]:
    """One row per category: count, message, up to three examples (module id and, when
    known, the source line the error points at; distinct lines first)."""
    items = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    lines = [f"#### {title} ({sum(len(v) for v in groups.values())} modules, "
             f"{len(groups)} categories)", ""]
    if not items:
        return lines + ["(none)", ""]
    lines += ["| count | message (normalized) | examples |", "|---:|---|---|"]
    for msg, members in items[:limit]:
        members = [m if isinstance(m, tuple) else (m, "") for m in members]
        picked, seen = [], set()
        for mid, line in members:  # distinct source lines show more of the category
            if line not in seen:
                seen.add(line)
                picked.append((mid, line))
        picked += [m for m in members if m not in picked]
        cells = [f"{mid} (`{line}`)" if line else mid for mid, line in picked[:3]]
        examples = ", ".join(cells).replace("|", "\\|")
        cell = msg.replace("|", "\\|")
        lines.append(f"| {len(members)} | {cell} | {examples} |")
    if len(items) > limit:
        rest = sum(len(v) for _, v in items[limit:])
        lines.append(f"| {rest} | ({len(items) - limit} more categories) | |")
    return lines + [""]


def refused_as_ill_formed(e: dict) -> bool:
    """TVM would not build the module because its own well-formedness check, run by the
    decorator, failed: excluded from the rates, but our check should reject it too."""
    return e.get("tvm") == "excluded" and "not well-formed" in e.get("exclude_reason", "")


def _form_sensitive(entries: list[dict], results: dict) -> list[str]:
    """Modules whose hand-written form fails (parse or check) while TVM's printing of the
    same module passes: the sugar and defaults of hand-written text that we miss."""
    groups = defaultdict(list)
    for e in entries:
        r = results.get(e["id"])
        if not r or r["printed"] is None or not r["printed"]["checked"]:
            continue
        h = r["hand"]
        if h["checked"]:
            continue
        msg = h["crash"] or h["parse_error"] or h["check_error"]
        groups[normalize_message(msg)].append((e["id"], h["error_line"]))
    return ["## hand-written form fails, TVM's printing of the same module checks", ""] + \
        _categories("hand-only failures", groups, 30)


def _expected_rejects(entries: list[dict], results: dict) -> list[str]:
    """Each module marked ill-formed, with TVM's reason and our verdict on both forms."""
    lines = ["## modules marked ill-formed: TVM's reason and our verdict", ""]
    tvm_rejects = [e for e in entries
                   if e.get("tvm") == "ok" and e.get("tvm_well_formed") is False]
    for form in FORMS:
        got = [results[e["id"]][form] for e in tvm_rejects]
        got = [o for o in got if o is not None and o["parsed"] and not o["crash"]]
        agree = sum(not o["checked"] for o in got)
        lines.append(f"- {form}: TVM's well_formed rejects {len(tvm_rejects)} modules; of "
                     f"the {len(got)} we parse, our check rejects {agree} and accepts "
                     f"{len(got) - agree}")
    refused = [e for e in entries if refused_as_ill_formed(e) and e["id"] in results]
    got = [results[e["id"]]["hand"] for e in refused]
    got = [o for o in got if o["parsed"] and not o["crash"]]
    lines.append(f"- hand: TVM's decorator refuses {len(refused)} more modules as ill-formed "
                 f"(excluded above); of the {len(got)} we parse, our check rejects "
                 f"{sum(not o['checked'] for o in got)}")
    lines += ["", "| module | TVM | hand | printed |", "|---|---|---|---|"]

    def verdict(o: dict | None) -> str:
        if o is None:
            return "(not measured)"
        if o["crash"]:
            return "CRASH " + o["crash"]
        if not o["parsed"]:
            return "parse error: " + normalize_message(o["parse_error"])
        if o["checked"]:
            return "**accepted**"
        return "rejected: " + normalize_message(o["check_error"])

    for e in entries:
        if e["id"] not in results or not (
                e["check_well_formed_false"] or e.get("tvm_well_formed") is False
                or refused_as_ill_formed(e)):
            continue
        tvm = (e.get("tvm_note") or e.get("exclude_reason")
               or "well-formed, but check_well_formed=False")
        cells = [e["id"], tvm, verdict(results[e["id"]]["hand"]),
                 verdict(results[e["id"]]["printed"])]
        lines.append("| " + " | ".join(c.replace("|", "/")[:160] for c in cells) + " |")
    return lines + [""]


def render_report(entries: list[dict], results: dict, meta: dict) -> str:
    excluded = [e for e in entries if e.get("tvm") != "ok"]
    stats = {form: summarize(entries, results, form) for form in FORMS}
    lines = ["# relax_ref on TVM's Relax test suite", "",
             f"- measured: {meta['time']}, relax_ref commit {meta['commit']}",
             f"- TVM tests: {meta['tvm_repo']} at {meta['tvm_commit']} ({meta['files']} files,"
             f" {len(entries)} ir_module classes); built with TVM {meta['tvm_version']}",
             f"- cross-check: {meta['decorator_lines'][0]} lines look like an ir_module "
             f"decorator, {meta['decorator_lines'][1]} of them inside string literals"
             if meta.get("decorator_lines") else "- cross-check: (not recorded)",
             f"- excluded (TVM cannot build them standalone): {len(excluded)}; and from the "
             f"printed form only, {stats['printed'].meta_omitted} that TVM 0.27 prints with "
             "tensor constants as metadata it omits (show_meta=True segfaults)",
             f"- module texts: {meta['out']}/hand/<id>.py and {meta['out']}/printed/<id>.py"
             + (f"; a reader's notes on the failures: {meta['out']}/notes.md"
                if (Path(meta["out"]) / "notes.md").is_file() else ""),
             "",
             "Check % is over modules that parse or not, less those marked ill-formed "
             "(check_well_formed=False or TVM's well_formed is False) and those that use "
             "an op we do not register.", "",
             "Round trip: of the modules that check, how many of our printings read back, "
             "check again and are structurally equal to the module printed.", "",
             "| form | total | parsed | parse % | checked | check % | unregistered-op "
             "| expected-reject (rejected/parsed) | excluded | crashes | round trip |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for form, s in stats.items():
        lines.append(
            f"| {form} | {s.total} | {s.parsed} | {_pct(s.parsed, s.total)} | {s.checked} "
            f"| {_pct(s.checked, s.check_denominator)} (of {s.check_denominator}) "
            f"| {s.unregistered} | {s.expected_reject} ({s.expected_reject_rejected}/"
            f"{s.expected_reject_parsed}) | {s.excluded} | {len(s.crashes)} "
            f"| {s.checked - sum(map(len, s.round_trip_fail.values()))}/{s.checked} |")
    lines.append("")
    if meta.get("history"):
        lines += ["Earlier measurements (parse % / check %, hand and printed):", ""]
        lines += [f"- {h['time']} at {h['commit']}: hand {h['hand']}, printed {h['printed']}"
                  for h in meta["history"]]
        lines.append("")
    for form, s in stats.items():
        lines += [f"## {form} form", ""]
        if s.crashes:
            lines += [f"#### crashes: raw exceptions from relax_ref ({len(s.crashes)})", "",
                      "| stage | exception | examples |", "|---|---|---|"]
            by = defaultdict(list)
            for mid, stage, line in s.crashes:
                by[(stage, line)].append(mid)
            for (stage, line), ids in sorted(by.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"| {stage} | {line.replace('|', '/')} | "
                             f"{', '.join(ids[:3])} ({len(ids)}) |")
            lines.append("")
        for stage, groups in (("parse", s.parse_fail), ("check", s.check_fail)):
            by_rule = ", ".join(f"{r} {n}" for r, n in s.rules[stage].most_common())
            lines += [f"{stage} failures by rule: {by_rule or '(none)'}", ""]
            lines += _categories(f"{stage} failures", groups)
        if s.round_trip_fail:
            lines += _categories("round-trip failures (our printing does not read back)",
                                 s.round_trip_fail)
        if s.ops:
            lines += ["#### unregistered ops (modules using each)", "",
                      ", ".join(f"{op} {n}" for op, n in s.ops.most_common()), ""]
        if s.accepted_ill_formed:
            lines += ["#### ill-formed by TVM's mark but accepted by our check "
                      f"({len(s.accepted_ill_formed)})", "",
                      ", ".join(s.accepted_ill_formed[:30]), ""]
    lines += _form_sensitive(entries, results)
    lines += _expected_rejects(entries, results)
    reasons = defaultdict(list)
    for e in excluded:
        reasons[normalize_message(e.get("exclude_reason", "?"))].append(e["id"])
    lines += _categories("excluded: why TVM could not build them standalone", reasons, 25)
    return "\n".join(lines)


# --------------------------------------------------------------------------- main

def _git_head(args: list[str]) -> str:
    try:
        return subprocess.run(args, check=True, capture_output=True,
                              text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def _tvm_version() -> str:
    # Not ``import tvm`` here: the workers are forked from this process.
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("apache-tvm")
    except PackageNotFoundError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tvm-repo", default=DEFAULT_TVM_REPO, help="a git dir of apache/tvm")
    ap.add_argument("--out", default="/tmp/corpus", help="cache and report folder")
    ap.add_argument("--measure-only", action="store_true",
                    help="re-measure the cached corpus (no TVM needed)")
    ap.add_argument("--jobs", type=int, default=2, help="TVM worker processes")
    args = ap.parse_args(argv)
    out = Path(args.out)
    index_path = out / "index.json"
    if args.measure_only:
        index = json.loads(index_path.read_text())
    else:
        for sub in ("hand", "printed"):
            (out / sub).mkdir(parents=True, exist_ok=True)
        files = suite_files(args.tvm_repo)
        entries = []
        lines_seen = [0, 0]
        for path, text in files:
            try:
                found = extract(text, path)
            except SyntaxError as err:
                print(f"skipped {path}: {err}", file=sys.stderr)
                continue
            lines_seen = [a + b for a, b in zip(lines_seen, decorator_lines(text))]
            for x in found:
                (out / "hand" / f"{x.id}.py").write_text(x.hand)
                d = asdict(x)
                del d["hand"]
                entries.append(d)
        print(f"{len(entries)} ir_module classes in {len(files)} files; building with TVM",
              file=sys.stderr)
        build_with_tvm(entries, out, args.jobs)
        index = {"tvm_repo": args.tvm_repo, "files": len(files),
                 "tvm_commit": _git_head(["git", f"--git-dir={args.tvm_repo}",
                                          "rev-parse", "--short", "HEAD"]),
                 "tvm_version": _tvm_version(), "decorator_lines": lines_seen,
                 "entries": entries}
        index_path.write_text(json.dumps(index, indent=1))

    entries = index["entries"]
    results = {}
    for n, e in enumerate(entries):
        if refused_as_ill_formed(e):  # no printed form; the hand form must be rejected
            results[e["id"]] = {"hand": asdict(measure_text(
                (out / "hand" / f"{e['id']}.py").read_text(), f"hand/{e['id']}.py")),
                "printed": None}
            continue
        if e.get("tvm") != "ok":
            continue
        hand = (out / "hand" / f"{e['id']}.py").read_text()
        printed = (out / "printed" / f"{e['id']}.py").read_text()
        results[e["id"]] = {
            "hand": asdict(measure_text(hand, f"hand/{e['id']}.py")),
            "printed": None if META_OMITTED in printed
            else asdict(measure_text(printed, f"printed/{e['id']}.py"))}
        if (n + 1) % 200 == 0:
            print(f"  measured {n + 1}/{len(entries)}", file=sys.stderr)
    (out / "results.json").write_text(json.dumps(results, indent=1))
    meta = {"time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _git_head(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
            + (" + uncommitted changes in relax_ref/" if _git_head(
                ["git", "-C", str(REPO), "status", "--porcelain", "relax_ref"]) else ""),
            "decorator_lines": index.get("decorator_lines"),
            **{k: index[k] for k in ("tvm_repo", "tvm_commit", "tvm_version", "files")}}
    history_path = out / "history.json"
    history = json.loads(history_path.read_text()) if history_path.exists() else []
    meta["out"], meta["history"] = str(out), history
    report = render_report(entries, results, meta)
    now = {form: summarize(entries, results, form) for form in FORMS}
    history.append({"time": meta["time"], "commit": meta["commit"], **{
        form: f"{_pct(s.parsed, s.total)} / {_pct(s.checked, s.check_denominator)}"
        for form, s in now.items()}})
    history_path.write_text(json.dumps(history, indent=1))
    (out / "report.md").write_text(report + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
