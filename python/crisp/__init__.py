"""crisp - the Crisp compiler as a Python module.

Compiles Crisp source held in a string, in memory, through libcrisp's C API
(include/crisp.h; ctypes, no process is started and no file written)::

    import crisp
    result = crisp.compile(source, flags="-DN=64")
    result.opencl_c        # the OpenCL C text, for pyopencl.Program(...)
    result.metadata        # the kernels and their arguments (a dict)
    result.diagnostics     # warnings: crisp.Diagnostic objects

    try:
        crisp.compile("(def-kernel k (a:int) (+ a 1.0))")
    except crisp.CompileError as e:
        print(e.file, e.line, e.column, e.code)   # <string> 1 29 E0304

Other targets: ``crisp.compile(source, target="spv")`` (SPIR-V bytes for
clCreateProgramWithIL), ``"ptx"``, ``"sm_90"`` (a cubin), ``"pvc"``: these
run the vendor tools (docs/targets.md).  ``crisp.Context`` is the whole C
API (several inputs, files, flags, the tree-shake cache, status codes).
The library is found in this package (pip install), then $CRISP_LIBRARY,
then the repository's build/ directory, then the system's libcrisp.so.
"""

import ctypes
import ctypes.util
import json
import os
import re

__all__ = ["compile", "Context", "Compiled", "Diagnostic", "CompileError", "version",
           "SUCCESS_COMPATIBLE", "SUCCESS_BREAKING_CHANGE", "ERROR_COMPILE_FAILURE"]

# crisp_status (spec "Status Codes")
SUCCESS_COMPATIBLE = 0
SUCCESS_BREAKING_CHANGE = 1
ERROR_COMPILE_FAILURE = -1

_HERE = os.path.dirname(os.path.abspath(__file__))


def _candidates():
    yield os.path.join(_HERE, "libcrisp.so")
    env = os.environ.get("CRISP_LIBRARY")
    if env:
        yield env
    yield os.path.join(_HERE, "..", "..", "build", "libcrisp.so")
    found = ctypes.util.find_library("crisp")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("crisp: cannot find libcrisp.so (build it with `make`, install the package "
                      "with pip, or set CRISP_LIBRARY); tried: " + ", ".join(tried))


_lib = _load()
_ctx_p = ctypes.c_void_p
_sig = {
    "crisp_version": (ctypes.c_char_p, []),
    "crisp_new_context": (_ctx_p, [ctypes.c_char_p]),
    "crisp_destroy_context": (None, [_ctx_p]),
    "crisp_set_tree_shake_directory": (ctypes.c_int, [_ctx_p, ctypes.c_char_p]),
    "crisp_add_input_file": (ctypes.c_int, [_ctx_p, ctypes.c_char_p]),
    "crisp_add_input_string": (ctypes.c_int, [_ctx_p, ctypes.c_char_p, ctypes.c_char_p]),
    "crisp_set_flags": (ctypes.c_int, [_ctx_p, ctypes.c_char_p]),
    "crisp_get_flags": (ctypes.c_int, [_ctx_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t)]),
    "crisp_compile": (ctypes.c_int, [_ctx_p, ctypes.POINTER(ctypes.c_size_t)]),
    "crisp_compile_string": (ctypes.c_int, [_ctx_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t)]),
    "crisp_get_binary": (ctypes.c_bool, [_ctx_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]),
    "crisp_get_compilation_error_code": (ctypes.c_long, [_ctx_p]),
    "crisp_get_messages": (ctypes.c_char_p, [_ctx_p]),
    "crisp_get_metadata": (ctypes.c_char_p, [_ctx_p]),
}
for _name, (_res, _args) in _sig.items():
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def version():
    """The library's version (CRISP_VERSION)."""
    return _lib.crisp_version().decode()


def _b(s):
    return s.encode("utf-8") if isinstance(s, str) else s


class Diagnostic:
    """One error, warning or note, as crisp prints it: FILE:LINE:COL:
    SEVERITY[CODE]: MESSAGE.  `file`, `line`, `column` are None for messages
    about no place (a bad flag, a missing tool); `notes` are the notes that
    follow an error or warning."""

    __slots__ = ("file", "line", "column", "severity", "code", "message", "notes")

    def __init__(self, file, line, column, severity, code, message):
        self.file, self.line, self.column = file, line, column
        self.severity, self.code, self.message = severity, code, message
        self.notes = []

    def __repr__(self):
        return "Diagnostic(%r)" % str(self)

    def __str__(self):
        where = "%s:%d:%d: " % (self.file, self.line, self.column) if self.file and self.line else \
                "%s: " % self.file if self.file else "crisp: "
        return "%s%s%s: %s" % (where, self.severity, "[%s]" % self.code if self.code else "", self.message)


_MSG = re.compile(r"^(?:(?P<file>.+?):(?P<line>\d+):(?P<col>\d+)|crisp|(?P<fileonly>[^:\s][^:]*?)): "
                  r"(?P<sev>error|warning|note)(?:\[(?P<code>[A-Z]\d+)\])?: (?P<msg>.*)$")


def parse_messages(text):
    """crisp's diagnostics text -> [Diagnostic]; source excerpts are skipped
    and notes attached to the error or warning before them."""
    out = []
    for line in text.splitlines():
        m = _MSG.match(line)
        if not m:
            continue  # a source excerpt ("   12 | ...") or caret line
        file = m.group("file") or m.group("fileonly")
        d = Diagnostic(file, int(m.group("line")) if m.group("line") else None,
                       int(m.group("col")) if m.group("col") else None,
                       m.group("sev"), m.group("code"), m.group("msg"))
        if d.severity == "note" and out:
            out[-1].notes.append(d)
        else:
            out.append(d)
    return out


class CompileError(Exception):
    """The source did not compile.  `file`, `line`, `column`, `code` and
    `message` are those of the first error; `diagnostics` has them all,
    `messages` the text crisp printed, `error_code` the API's number (the
    first error's code without its letter, or 2 for an error without one:
    a bad flag, an unreadable file, a missing or failing vendor tool)."""

    def __init__(self, messages, error_code):
        self.messages = messages
        self.error_code = error_code
        self.diagnostics = parse_messages(messages)
        first = next((d for d in self.diagnostics if d.severity == "error"), None)
        self.file = first.file if first else None
        self.line = first.line if first else None
        self.column = first.column if first else None
        self.code = first.code if first else None
        self.message = first.message if first else messages.strip()
        super().__init__(str(first) if first else messages.strip() or "compilation failed")


class Compiled:
    """The result of a compilation: `binary` (bytes: OpenCL C, SPIR-V, PTX or
    a cubin), `opencl_c` (str, for the "oclc" target), `metadata` (dict),
    `diagnostics` (warnings), `messages` (their text), `status`
    (SUCCESS_COMPATIBLE or SUCCESS_BREAKING_CHANGE).  Unpacks as
    (opencl_c or binary, metadata, diagnostics)."""

    def __init__(self, target, binary, metadata_json, messages, status):
        self.target = target
        self.binary = binary
        self.opencl_c = binary.decode("utf-8") if target == "oclc" else None
        self._metadata_json = metadata_json
        self._metadata = None
        self.messages = messages
        self._diagnostics = None
        self.status = status

    @property
    def metadata(self):
        """The kernels, their arguments and sizes (the .metacrisp), parsed on first use."""
        if self._metadata is None and self._metadata_json:
            self._metadata = json.loads(self._metadata_json)
        return self._metadata

    @property
    def diagnostics(self):
        if self._diagnostics is None:
            self._diagnostics = parse_messages(self.messages)
        return self._diagnostics

    @property
    def breaking_change(self):
        return self.status == SUCCESS_BREAKING_CHANGE

    def __iter__(self):
        yield self.opencl_c if self.opencl_c is not None else self.binary
        yield self.metadata
        yield self.diagnostics


class Context:
    """One compilation environment (the C API's crisp_context): a target,
    inputs, flags and the last result.  Not to be shared between threads;
    separate contexts may run in parallel."""

    def __init__(self, target="oclc"):
        self.target = target
        self._ctx = _lib.crisp_new_context(_b(target))
        if not self._ctx:
            raise ValueError("unknown crisp target %r (oclc, spv, ptx, sm_XX, pvc)" % (target,))

    def close(self):
        if getattr(self, "_ctx", None):
            _lib.crisp_destroy_context(self._ctx)
            self._ctx = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - the library may be gone at interpreter exit
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check(self, r):
        if r != 0:
            raise CompileError(self.messages, _lib.crisp_get_compilation_error_code(self._ctx))

    @property
    def messages(self):
        return _lib.crisp_get_messages(self._ctx).decode("utf-8", "replace")

    def add_input_string(self, source, name="<string>"):
        self._check(_lib.crisp_add_input_string(self._ctx, _b(source), _b(name)))

    def add_input_file(self, path):
        self._check(_lib.crisp_add_input_file(self._ctx, _b(os.fspath(path))))

    def set_flags(self, flags):
        """Replace the flags (a string as on the command line, or a list)."""
        if not isinstance(flags, (str, bytes)):
            flags = " ".join("'" + f.replace("'", "'\\''") + "'" for f in flags)
        self._check(_lib.crisp_set_flags(self._ctx, _b(flags)))

    def get_flags(self):
        size = ctypes.c_size_t(0)
        _lib.crisp_get_flags(self._ctx, None, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        _lib.crisp_get_flags(self._ctx, buf, ctypes.byref(size))
        return buf.value.decode()

    def set_tree_shake_directory(self, path):
        self._check(_lib.crisp_set_tree_shake_directory(self._ctx, _b(os.fspath(path))))

    def compile(self, source=None):
        """Compile every input (and `source`, which then overrides earlier
        definitions of the same names).  Returns a Compiled; raises
        CompileError."""
        if source is None:
            status = _lib.crisp_compile(self._ctx, None)
        else:
            status = _lib.crisp_compile_string(self._ctx, _b(source), None)
        if status == ERROR_COMPILE_FAILURE:
            raise CompileError(self.messages, _lib.crisp_get_compilation_error_code(self._ctx))
        data, size = ctypes.c_void_p(), ctypes.c_size_t()
        _lib.crisp_get_binary(self._ctx, ctypes.byref(data), ctypes.byref(size))
        binary = ctypes.string_at(data, size.value) if size.value else b""
        meta = _lib.crisp_get_metadata(self._ctx)
        return Compiled(self.target, binary, meta.decode() if meta else None, self.messages, status)


def compile(source, flags="", target="oclc", name="<string>"):
    """Compile Crisp `source` (a str) in memory.  `flags` as on the command
    line ("-DN=4 --debug-output", or a list); `target` "oclc" (OpenCL C) or
    an IR / GPU binary target; `name` is the file name diagnostics use.
    Returns a Compiled (`.opencl_c`, `.metadata`, `.diagnostics`); raises
    CompileError (`.file`, `.line`, `.column`, `.code`) when it does not
    compile."""
    with Context(target) as ctx:
        if flags:
            ctx.set_flags(flags)
        ctx.add_input_string(source, name)
        return ctx.compile()
