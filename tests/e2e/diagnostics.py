"""The diagnostics a user and a tool see (docs/diagnostics.md):
--diagnostics-format=json, colour on a terminal only (NO_COLOR, --color),
-Werror, -w, -fmax-errors and --explain, run as the command line is."""
import json
import os
import pty
import subprocess

from crisptest import *

BAD = "tests/neg/E0375_unknown_key_argument.crisp"      # an error with a note
MACRO = "tests/neg/E0210_ct_assert_in_macro.crisp"       # inside a macro expansion
WARN = "tests/neg/CLI_werror_warning_is_an_error.crisp"  # one warning (W0302)
MANY = "tests/golden/diagnostics/error_cap.crisp"       # more than 50 errors


def json_lines(err):
    objs = [json.loads(line) for line in err.splitlines()]
    for o in objs:
        assert set(o) == {"file", "line", "column", "severity", "code", "message", "notes"}, o
        for n in o["notes"]:
            assert set(n) == {"file", "line", "column", "message"}, n
    return objs


@case
def json_one_object_per_line():
    status, out, err = crisp("--diagnostics-format=json", BAD)
    check("exit 1", status == 1, err)
    objs = json_lines(err)
    check("one diagnostic", len(objs) == 1, err)
    o = objs[0]
    assert_equal([o["file"], o["line"], o["column"], o["severity"], o["code"]],
                 [BAD, 9, 35, "error", "E0375"])
    check("message", o["message"] == "`scaled` has no key parameter `scale`", o["message"])
    assert_equal(o["notes"], [{"file": BAD, "line": 3, "column": 1, "message": "`scaled` is defined here"}])


@case
def json_macro_expansion_notes():
    assert os.path.exists(MACRO), MACRO
    status, _, err = crisp("--diagnostics-format=json", MACRO)
    objs = json_lines(err)
    check("exit 1", status == 1, err)
    check("expansion note", any("in expansion of macro" in n["message"] for o in objs for n in o["notes"]), err)


@case
def json_file_errors_and_warnings():
    status, _, err = crisp("--diagnostics-format=json", "no_such_file.crisp")
    check("exit 2", status == 2, err)
    assert_equal(json_lines(err), [{"file": None, "line": None, "column": None, "severity": "error", "code": None,
                                    "message": "cannot read `no_such_file.crisp`: No such file or directory",
                                    "notes": []}])
    status, _, err = crisp("--diagnostics-format=json", WARN)
    check("exit 0", status == 0, err)
    assert_equal([(o["severity"], o["code"]) for o in json_lines(err)], [("warning", "W0302")])


@case
def json_has_no_colour():
    status, _, err = crisp("--diagnostics-format=json", "--color=always", BAD)
    check("no escape", "\033" not in err, err)
    json_lines(err)


def on_terminal(*args, env=None):
    """Run crisp with stderr on a pseudo-terminal; its output and status."""
    master, slave = pty.openpty()
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.Popen([os.path.join(REPO, "crisp")] + list(args), cwd=REPO, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=slave, env=e)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return p.wait(timeout=60), b"".join(chunks).decode(errors="replace")


@case
def colour_on_a_terminal_only():
    status, err = on_terminal(BAD)
    check("exit 1", status == 1, err)
    check("red error on a terminal", "\033[1;31merror[E0375]:" in err, repr(err))
    status, err = on_terminal(BAD, env={"NO_COLOR": "1"})
    check("NO_COLOR", "\033" not in err, repr(err))
    status, err = on_terminal("--color=never", BAD)
    check("--color=never", "\033" not in err, repr(err))
    _, _, err = crisp(BAD)
    check("no colour in a pipe", "\033" not in err, repr(err))
    _, _, err = crisp("--color=always", BAD)
    check("--color=always in a pipe", "\033[1;31merror[E0375]:" in err, repr(err))


@case
def werror_and_w():
    d = out_dir("werror")
    status, _, err = crisp("--transpile-to=oclc", "--output-dir=" + d, WARN)
    check("a warning alone: exit 0", status == 0, err)
    check("warning shown", "warning[W0302]" in err, err)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    status, _, err = crisp("-Werror", "--transpile-to=oclc", "--output-dir=" + d, WARN)
    check("-Werror: exit 1", status == 1, err)
    check("-Werror: reported as an error", "error[W0302]" in err and "[-Werror]" in err, err)
    check("-Werror: no output", os.listdir(d) == [], str(os.listdir(d)))
    status, _, err = crisp("-w", WARN)
    check("-w: exit 0, silent", status == 0 and err == "", err)
    status, _, err = crisp("-w", "-Werror", WARN)
    check("-w wins over -Werror", status == 0 and err == "", err)


@case
def max_errors():
    _, _, err = crisp(MANY)
    check("50 by default", err.count("error[") == 50 and "too many errors (50)" in err, err[-300:])
    _, _, err = crisp("-fmax-errors=3", MANY)
    check("3", err.count("error[") == 3 and "too many errors (3)" in err, err[-300:])
    status, _, err = crisp("-fmax-errors=0", MANY)
    check("0: no limit", err.count("error[") > 50 and "too many errors" not in err, err[-300:])
    check("exit 1", status == 1)


@case
def explain():
    status, out, err = crisp("--explain", "E0312")
    check("exit 0", status == 0, err)
    check("title", out.startswith("E0312 (error): numeric types mixed without a conversion"), out)
    check("example", "Example (example.crisp, from tests/neg/E0312_" in out, out)
    check("what crisp reports", "crisp reports (exit status 1):" in out and "error[E0312]:" in out, out)
    status, out2, _ = crisp("--explain=e0312")
    check("--explain=code, any case", status == 0 and out2 == out)
    status, out, _ = crisp("--explain", "W0302")
    check("a warning", status == 0 and "W0302 (warning):" in out and "warning[W0302]" in out, out)
    status, out, _ = crisp("--explain", "E0490")
    check("an internal code", status == 0 and "No program triggers this diagnostic" in out, out)
    status, _, err = crisp("--explain")
    check("no code: exit 2", status == 2 and "is not a diagnostic code" in err, err)


if __name__ == "__main__":
    main()
