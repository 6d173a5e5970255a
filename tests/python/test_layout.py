# SPDX-License-Identifier: MIT
"""The module's picture of libfdma against include/fdma.h, as the C
compiler sees it on this machine: every structure's size, alignment and
field offsets and sizes; every constant; every function's prototype (each
redeclared from its ctypes argtypes and restype: a conflict is a compile
error); and every function of the header bound or said why not."""

import ctypes
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import fdma
from fdma import _ffi

ROOT = Path(__file__).resolve().parents[2]
HEADER = ROOT / "include" / "fdma.h"

# ctypes' integer classes as C names them. Where two C types have one size,
# ctypes makes one class of both (c_long is c_longlong on LP64, c_int on
# ILP32): the narrower name comes first and wins, as the C type behind
# int64_t or size_t on that platform does.
SCALARS = {}
for _t, _c in [(ctypes.c_byte, "signed char"), (ctypes.c_ubyte, "unsigned char"),
               (ctypes.c_short, "short"), (ctypes.c_ushort, "unsigned short"),
               (ctypes.c_int, "int"), (ctypes.c_uint, "unsigned int"),
               (ctypes.c_long, "long"), (ctypes.c_ulong, "unsigned long"),
               (ctypes.c_longlong, "long long"), (ctypes.c_ulonglong, "unsigned long long"),
               (ctypes.c_double, "double"), (ctypes.c_char_p, "char *"),
               (ctypes.c_void_p, "void *"), (_ffi.dev_p, "struct fdma_dev *"),
               (_ffi.stream_p, "struct fdma_stream *"), (None, "void")]:
    SCALARS.setdefault(_t, _c)
# What ctypes cannot say: const pointees and enums, by (function, argument
# index or "ret"). Each must be the derived type with "const " added, or an
# enum the same size as the int ctypes passes (checked below).
HINTS = {
    ("fdma_open", 1): "const char *",
    ("fdma_errmsg", 0): "const struct fdma_dev *",
    ("fdma_errmsg", "ret"): "const char *",
    ("fdma_submit", 2): "const struct fdma_req *",
    ("fdma_submit_copy", 2): "const struct fdma_copy *",
    ("fdma_stream_open_bufs", 2): "const int *",
    ("fdma_stream_release", 1): "const struct fdma_frame *",
    ("fdma_stream_drops", 0): "const struct fdma_stream *",
    ("fdma_find_chan", 1): "enum fdma_dir",
    ("fdma_find_chan", 2): "enum fdma_kind",
    ("fdma_ceiling", 1): "enum fdma_dir",
    ("fdma_chan_set_wait", 2): "enum fdma_wait_mode",
}
ENUMS = ["enum fdma_dir", "enum fdma_kind", "enum fdma_wait_mode"]
# The C tools run without a sanitizer runtime the interpreter may have
# preloaded (tests/cli/test_python.sh): TSan's crashes a shell.
TOOLS_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def ctype(t):
    if t in SCALARS:
        return SCALARS[t]
    if t in _ffi.C_NAMES:
        return "struct " + _ffi.C_NAMES[t]
    if hasattr(t, "_type_") and issubclass(t, ctypes._Pointer):
        return ctype(t._type_).rstrip(" *") + (" **" if ctype(t._type_).endswith("*") else " *")
    raise AssertionError("no C name for %r" % t)


def param(fn, i, t):
    derived = ctype(t)
    hint = HINTS.get((fn, i))
    if hint is None:
        return derived
    assert hint.startswith("enum ") or hint.replace("const ", "", 1) == derived, (
        "%s argument %s: hint %r is not %r made const" % (fn, i, hint, derived))
    return hint


def constants():
    """Python name -> C expression, for every constant the module exports."""
    out = {n: "FDMA_" + n for n in dir(fdma)
           if n.isupper() and isinstance(getattr(fdma, n), int) and n != "TESTGEN_HDR_SIZE"}
    out["TESTGEN_HDR_SIZE"] = "sizeof(struct fdma_testgen_hdr)"
    return out


def cc_or_skip():
    cc = os.environ.get("CC", "cc")
    if not shutil.which(cc):
        pytest.skip("no C compiler (%s) to compare with fdma.h" % cc)
    return cc


def compile_c(src, *args):
    return subprocess.run([cc_or_skip(), "-std=c11", "-Wall", "-Werror", "-I", str(HEADER.parent),
                           *args, str(src)], capture_output=True, text=True, env=TOOLS_ENV)


@pytest.fixture(scope="module")
def c_facts(tmp_path_factory):
    """Run a C program that prints what the compiler says, as {key: int}."""
    lines = []
    for cls, name in _ffi.C_NAMES.items():
        t = "struct " + name
        lines.append('P("sizeof %s", sizeof(%s)); P("alignof %s", _Alignof(%s));'
                     % (name, t, name, t))
        for f in cls._fields_:
            lines.append('P("%s.%s", offsetof(%s, %s)); P("%s.%s.size", sizeof(((%s *)0)->%s));'
                         % (name, f[0], t, f[0], name, f[0], t, f[0]))
    for py, c in constants().items():
        lines.append('P("%s", %s);' % (py, c))
    for e in ENUMS:
        lines.append('P("sizeof %s", sizeof(%s));' % (e, e))
    src = tmp_path_factory.mktemp("layout") / "layout.c"
    src.write_text("#include <stddef.h>\n#include <stdio.h>\n#include \"fdma.h\"\n"
                   "#define P(k, v) printf(\"%s %lld\\n\", k, (long long)(v))\n"
                   "int main(void)\n{\n" + "\n".join(lines) + "\nreturn 0;\n}\n")
    exe = src.with_suffix("")
    r = compile_c(src, "-o", str(exe))
    assert r.returncode == 0, "the structures and constants do not compile:\n" + r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                         env=TOOLS_ENV).stdout
    return {k: int(v) for k, v in (ln.rsplit(" ", 1) for ln in out.splitlines())}


@pytest.mark.parametrize("cls", list(_ffi.C_NAMES), ids=lambda c: _ffi.C_NAMES[c])
def test_struct_layout(c_facts, cls):
    name = _ffi.C_NAMES[cls]
    assert ctypes.sizeof(cls) == c_facts["sizeof " + name], "sizeof(struct %s)" % name
    assert ctypes.alignment(cls) == c_facts["alignof " + name], "alignment of struct %s" % name
    for f in cls._fields_:
        d = getattr(cls, f[0])
        assert (d.offset, d.size) == (c_facts["%s.%s" % (name, f[0])],
                                      c_facts["%s.%s.size" % (name, f[0])]), (
            "struct %s.%s: offset, size" % (name, f[0]))
    # Every field of the C structure is mirrored: the fields' sizes and the
    # padding the alignment gives add up to the whole.
    end = max(getattr(cls, f[0]).offset + getattr(cls, f[0]).size for f in cls._fields_)
    a = c_facts["alignof " + name]
    assert (end + a - 1) // a * a == c_facts["sizeof " + name], (
        "struct %s has fields not mirrored" % name)


def test_constants(c_facts):
    for py in constants():
        assert getattr(fdma, py) == c_facts[py], "fdma.%s" % py
    # And every constant of the header is in the module.
    text = HEADER.read_text()
    names = set(re.findall(r"^#define FDMA_(\w+)\s", text, re.M))
    names |= set(re.findall(r"^\s+FDMA_(\w+)\s*=", text, re.M))
    missing = names - set(constants()) - {"VERSION_STRING", "H"} - set(_ffi.UNBOUND_CONSTANTS)
    assert not missing, "constants of fdma.h missing from the module: %s" % sorted(missing)


def test_enums_are_ints(c_facts):
    for e in ENUMS:
        assert c_facts["sizeof " + e] == ctypes.sizeof(ctypes.c_int), "%s is not int-sized" % e


def test_prototypes(tmp_path):
    """Each bound function redeclared from its ctypes types after fdma.h:
    a type that differs is a conflict, which does not compile."""
    decls = []
    for fn, (res, args) in _ffi.PROTOS.items():
        ret = HINTS.get((fn, "ret"), ctype(res))
        decls.append("%s %s(%s);" % (ret, fn, ", ".join(param(fn, i, a)
                                                         for i, a in enumerate(args))))
    src = tmp_path / "protos.c"
    src.write_text('#include "fdma.h"\n' + "\n".join(decls) + "\n")
    r = compile_c(src, "-fsyntax-only")
    assert r.returncode == 0, "ctypes prototypes that differ from fdma.h:\n" + r.stderr


def test_every_function_bound():
    exports = subprocess.run(["sh", str(ROOT / "packaging" / "exports.sh"), str(HEADER),
                              os.environ.get("CC", "cc")], capture_output=True, text=True,
                             env=TOOLS_ENV)
    if exports.returncode != 0 or not exports.stdout.strip():
        pytest.skip("packaging/exports.sh did not list the header's functions: "
                    + exports.stderr.strip()[:200])
    funcs = set(exports.stdout.split())
    known = set(_ffi.PROTOS) | set(_ffi.UNBOUND)
    assert funcs - known == set(), "functions of fdma.h not bound: %s" % sorted(funcs - known)
    assert known - funcs == set(), "bound but not in fdma.h: %s" % sorted(known - funcs)
