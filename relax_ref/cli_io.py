"""The files of the command line: reading inputs and writing outputs safely
(spec/api.md, CLI-input-1, CLI-input-2, CLI-output-1).

Every problem with a file is a ``CLIError`` that names the file and the reason, never a
traceback: the exit code is 1 for a file's fault (unreadable, too large, not written) and
2 for the command line's (a bad option value).
"""
from __future__ import annotations

import math
import os
import stat
import zipfile
from pathlib import Path
from typing import IO, Callable

import numpy as np

from relax_ref.errors import ParseError, ResourceError
from relax_ref.ir.span import Span
# CLI-input-1 refuses a file over the parser's limits (SYN-limit-1) before reading it.
from relax_ref.parser.syntax import MAX_TEXT_BYTES, MAX_TEXT_LINES


class CLIError(Exception):
    """A problem with the command line or its files; ``code`` is the exit status."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.code = code


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def regular_file(path: str, what: str = "input", verb: str = "read") -> os.stat_result:
    """CLI-input-1: ``path`` exists and is a regular file (a FIFO or /dev/zero would
    block or never end)."""
    try:
        st = os.stat(path)
    except OSError as err:
        raise CLIError(f"cannot {verb} {path}: {err.strerror or err}", 1) from None
    if not stat.S_ISREG(st.st_mode):
        raise CLIError(f"cannot {verb} {path}: it is {_kind_of(st.st_mode)}; the {what} "
                       f"must be a regular file", 1)
    return st


def read_text(path: str) -> str:
    """CLI-input-1: the UTF-8 text of a regular file of at most MAX_TEXT_BYTES and
    MAX_TEXT_LINES; a byte
    sequence that is not UTF-8 is a ParseError at its line and column."""
    st = regular_file(path)
    if st.st_size > MAX_TEXT_BYTES:
        raise CLIError(f"cannot read {path}: it has {st.st_size} bytes, more than the "
                       f"{MAX_TEXT_BYTES >> 20} MiB an input text may have", 1)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_TEXT_BYTES + 1)  # the file may grow after the stat
    except OSError as err:
        raise CLIError(f"cannot read {path}: {err.strerror or err}", 1) from None
    if len(data) > MAX_TEXT_BYTES:
        raise CLIError(f"cannot read {path}: it has more than the {MAX_TEXT_BYTES >> 20} "
                       f"MiB an input text may have", 1)
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if lines > MAX_TEXT_LINES:
        raise CLIError(f"cannot read {path}: it has {lines} lines, more than the "
                       f"{MAX_TEXT_LINES} an input text may have", 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise ParseError(f"the file is not UTF-8 text (byte 0x{data[err.start]:02x} cannot "
                         f"start or continue a character here)",
                         Span(path, line, col, line, col + 1), rule="SYN-lex-1") from None


# -- outputs (CLI-output-1) ---------------------------------------------------------------------

def write_output(path: str, write: Callable[[IO[bytes]], None]) -> None:
    """Open ``path`` for writing, call ``write(file)``, close it; any failure (a
    directory, no permission, a full device) is a CLIError naming the path, and a
    regular file this call created is removed rather than left half-written."""
    if not path:
        raise CLIError("an output file name is empty")
    if os.path.isdir(path):
        raise CLIError(f"cannot write {path}: it is a directory", 1)
    existed = os.path.lexists(path)
    try:
        with open(path, "wb") as f:
            write(f)
    except OSError as err:
        if not existed:
            try:
                if stat.S_ISREG(os.stat(path).st_mode):
                    os.unlink(path)
            except OSError:
                pass
        raise CLIError(f"cannot write {path}: {err.strerror or err}", 1) from None


def write_text(path: str, text: str) -> None:
    write_output(path, lambda f: f.write(text.encode("utf-8")))


def writable_directory(path: str) -> None:
    """CLI-output-1 for an output directory made later (``fuzz --out``): ``path`` is a
    writable directory, or can be created as one."""
    if not path:
        raise CLIError("an output directory name is empty")
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise CLIError(f"cannot write into {path}: it is not a directory", 1)
        if not os.access(p, os.W_OK | os.X_OK):
            raise CLIError(f"cannot write into {path}: permission denied", 1)
        return
    parent = p.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise CLIError(f"cannot create the directory {path}: {parent} is not a writable "
                       f"directory", 1)


# -- NumPy files (CLI-input-2) --------------------------------------------------------------------

def _declared(f: IO[bytes], where: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and dtype an .npy header declares, read without the data."""
    fmt = np.lib.format
    version = fmt.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = fmt.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, _, dtype = fmt.read_array_header_2_0(f)
    else:
        raise CLIError(f"cannot load {where}: .npy format version {version} is not read "
                       f"(versions 1.0 and 2.0 are)", 1)
    return tuple(shape), dtype


def _check_declared(f: IO[bytes], where: str, max_bytes: int) -> int:
    """The bytes the header declares, checked against ``max_bytes`` (EXEC-limit-1)."""
    shape, dtype = _declared(f, where)
    if dtype.hasobject:
        raise CLIError(f"cannot load {where}: it holds Python objects (a pickle), which are "
                       f"never loaded", 1)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > max_bytes:
        raise ResourceError(f"{where} declares an array of shape {list(shape)} and dtype "
                            f"{dtype} ({nbytes} bytes), over the tensor size limit of "
                            f"{max_bytes} bytes", rule="EXEC-limit-1")
    return nbytes


def load_npy(path: str, max_bytes: int) -> np.ndarray:
    """The array of an .npy file, its declared size checked before it is read."""
    regular_file(path, "array file", "load")
    try:
        with open(path, "rb") as f:
            _check_declared(f, path, max_bytes)
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as err:
        raise CLIError(f"cannot load {path}: {err}", 1) from None


def load_npz(path: str, max_bytes: int) -> dict[str, np.ndarray]:
    """Every array of an .npz archive by name, each declared size checked (and their
    sum) before any array is read."""
    regular_file(path, "archive", "load")
    try:
        with zipfile.ZipFile(path) as zf:
            total = 0
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    raise CLIError(f"cannot load {path}: {info.filename} is not an array", 1)
                with zf.open(info) as f:
                    where = f"{path}: {info.filename[:-4]}"
                    total += _check_declared(f, where, max_bytes)
                if total > max_bytes:
                    raise ResourceError(f"{path}: its arrays together hold {total} bytes, "
                                        f"over the tensor size limit of {max_bytes} bytes",
                                        rule="EXEC-limit-1")
        with np.load(path, allow_pickle=False) as data:
            return {k: data[k] for k in data.files}
    except zipfile.BadZipFile as err:
        raise CLIError(f"cannot load {path}: it is not an .npz archive ({err})", 1) from None
    except (OSError, ValueError, EOFError) as err:
        raise CLIError(f"cannot load {path}: {err}", 1) from None

