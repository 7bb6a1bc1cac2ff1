"""The ``relax-ref`` command line."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from relax_ref.semantics.errors import RelaxError


def _read(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise SystemExit(f"relax-ref: cannot read {path}: {err.strerror}")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        print(f"{path}:{line}:{col}: error: the file is not UTF-8 text [SYN-lex-1]",
              file=sys.stderr)
        raise SystemExit(1)


def cmd_print(args: argparse.Namespace) -> int:
    from relax_ref.parser.builder import parse
    from relax_ref.parser.printer import print_module

    mod = parse(_read(args.file), args.file)
    text = print_module(mod)
    if args.output:
        Path(args.output).write_text(text + ("" if text.endswith("\n") else "\n"))
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="relax-ref", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("print", help="parse a TVMScript file and print it back (TVM 0.27 dialect)")
    p.add_argument("file")
    p.add_argument("-o", "--output", help="write to this file instead of standard output")
    p.set_defaults(func=cmd_print)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except RelaxError as err:
        print(err.render(), file=sys.stderr)
        return 1
    except RecursionError:
        print("relax-ref: error: the program is nested too deeply", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
