"""The recorder's CPython harness (`agent-loop-cli record`): run an author's
program and its setup once under sys.settrace and print what happened as
one JSON object on standard output.

    python3 record.py PROGRAM JOB MODE

PROGRAM is the program's text in one language (the marks still in it);
JOB is the job as JSON, written by cli/src/record/harness.rs: the
program's and the setup's file names as the manifest gives them, the
setup's text, the traced functions with their lines, the record's name,
the scenario (its id, language and, for a `file` scenario, its replies,
tools, tool results and process outcomes), the limits, and the requests
to refuse with the API's 400; MODE is `inspect` (what the program
defines and marks; nothing of it runs) or `run` (one scenario in one
language). docs/program-format.md says what comes back.

The one preview rule is core/src/preview.rs's, mirrored in `Preview`.
Standard library only. The file parses on any Python 3 (no f-strings), so
that an older one than 3.10 can say its version: it prints
{"python_too_old": "3.8.18"} and nothing else.
"""

import sys

NEEDED = (3, 10)


def version():
    return "%d.%d.%d" % tuple(sys.version_info[:3])


# The one preview rule (core/src/preview.rs): strings cut at 400
# characters, lists at 50 items, nesting at 24 levels; every key of an
# object kept; the record itself shown as its length.
CHARS, ITEMS, DEPTH = 400, 50, 24
NOTHING = object()


def cut(text, most):
    """At most `most` characters, then how many were left out."""
    if len(text) <= most:
        return text
    return "%s\u2026 (+%d chars)" % (text[:most], len(text) - most)


def plain_repr(value):
    """repr() without what changes from run to run (addresses, paths)."""
    import re
    if type(value).__name__ == "module":
        return "<module '%s'>" % value.__name__
    try:
        text = repr(value)
    except Exception:
        text = "<%s object>" % type(value).__name__
    return re.sub(r" at 0x[0-9A-Fa-f]+", "", text)


def dumped(value):
    """What an SDK-like object (pydantic) gives as JSON, or NOTHING."""
    if isinstance(value, type) or not callable(getattr(type(value), "model_dump", None)):
        return NOTHING
    try:
        return value.model_dump(mode="json", exclude_none=True)
    except Exception:
        return NOTHING


def fields_of(value):
    """The fields of a SimpleNamespace, a dataclass instance or a
    namedtuple, the ways an author's stand-in for an SDK object usually
    holds them (a dataclass field with no value left out), or NOTHING."""
    import dataclasses
    import types
    try:
        if isinstance(value, types.SimpleNamespace):
            return dict(vars(value))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = ((f.name, getattr(value, f.name, NOTHING)) for f in dataclasses.fields(value))
            return dict((name, v) for name, v in fields if v is not NOTHING)
        if isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple):
            return dict(zip(type(value)._fields, value))
    except Exception:
        pass  # (a field that raises when read: the value is its repr)
    return NOTHING


def key_text(key):
    """An object key as JSON writes one."""
    import json
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return plain_repr(key)


def number(value):
    import math
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    return value if -2 ** 63 <= value < 2 ** 64 else cut(repr(value), CHARS)


class Preview:
    """The preview of a value, as core/src/preview.rs writes a local."""

    def __init__(self):
        self.record = None

    def value(self, value, depth=0):
        if value is not None and value is self.record:
            return "(the record, n = %d)" % len(value)
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, (int, float)):
            return number(value)
        if isinstance(value, str):
            return cut(value, CHARS)
        data = dumped(value)
        if data is not NOTHING:
            return self.value(data, depth)
        if isinstance(value, (list, tuple)):
            return self.items(list(value), depth)
        if isinstance(value, (set, frozenset)):
            return self.items(sorted(value, key=plain_repr), depth)
        if isinstance(value, dict):
            if depth >= DEPTH:
                return "\u2026"
            if list(value) == ["$repr"] and isinstance(value["$repr"], str):
                # (it would read as a repr: written as Python writes the dict)
                return {"$repr": cut(plain_repr(value), CHARS)}
            return dict((key_text(k), self.value(v, depth + 1)) for k, v in value.items())
        # (as Python writes it, not as a string: core/src/preview.rs's Repr)
        return {"$repr": cut(plain_repr(value), CHARS)}

    def items(self, items, depth):
        if depth >= DEPTH:
            return "\u2026"
        shown = [self.value(item, depth + 1) for item in items[:ITEMS]]
        if len(items) > ITEMS:
            shown.append("\u2026 (+%d more)" % (len(items) - ITEMS))
        return shown


def is_record(value, records):
    """Whether `value` is, or was, the run's record (a loop may bind its
    name to a longer list: a block that kept the old one kept the record)."""
    return any(value is r for r in records)


def to_json(value, depth=0, records=(), within=(), found=None, path=""):
    """A value in full as JSON (the record, a request): SDK objects by
    their model_dump(mode="json", exclude_none=True), a SimpleNamespace,
    a dataclass or a namedtuple by its fields (as the SDK would send the
    objects they stand in for). The same value gives the same JSON
    wherever it is met: the record (any list that has been it: `records`)
    inside itself is "(the record)" (a block that keeps the
    conversation), a value inside itself "\u2026", where Python's repr
    writes "...". Anything else is its repr; given a list `found`, each
    such value's (path, class name) is put in it."""
    if depth > 100:
        return "\u2026"
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return number(value)
    if depth > 0 and is_record(value, records):
        return "(the record)"
    if id(value) in within:
        return "\u2026"
    within = within + (id(value),)

    def inner(item, key):
        # (the path is written only when it is asked for)
        at = "" if found is None else child_path(path, key)
        return to_json(item, depth + 1, records, within, found, at)

    data = dumped(value)
    if data is NOTHING:
        data = fields_of(value)
    if data is not NOTHING:
        return to_json(data, depth + 1, records, within, found, path)
    if isinstance(value, (list, tuple)):
        return [inner(item, i) for i, item in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        return [inner(item, i) for i, item in enumerate(sorted(value, key=plain_repr))]
    if isinstance(value, dict):
        return dict((key_text(k), inner(v, key_text(k))) for k, v in value.items())
    if found is not None:
        found.append((path, type(value).__name__))
    return plain_repr(value)


def child_path(path, key):
    """`content[0]`, `content[0].input`: where a value is in a message."""
    if isinstance(key, int):
        return "%s[%d]" % (path, key)
    return "%s.%s" % (path, key) if path else key


def exception_line(kind, error):
    """The last line Python prints of an exception nobody caught."""
    import traceback
    return traceback.format_exception_only(kind, error)[-1].rstrip("\n")


class Stop(BaseException):
    """A budget ran out (steps, time, output) or the record broke its
    promise; a BaseException, so that the program's `except Exception`
    does not take it."""


class Printed:
    """Standard output while the run lasts: what the program prints, with
    the number of finished lines (a step's output_len), at most `limit`
    characters."""

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, limit, on_over):
        self.parts, self.chars, self.lines = [], 0, 0
        self.limit, self.on_over = limit, on_over

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not %s" % type(text).__name__)
        self.chars += len(text)
        if self.chars > self.limit:
            self.on_over()
        self.parts.append(text)
        self.lines += text.count("\n")
        return len(text)

    def flush(self):
        pass

    def writable(self):
        return True

    def isatty(self):
        return False

    def text(self):
        return "".join(self.parts)


# Stand-ins for a `file` scenario: the SDK's client and errors, subprocess
# and the application's tools, playing the scenario's script.

BLOCK_KINDS = {"text": "TextBlock", "tool_use": "ToolUseBlock", "thinking": "ThinkingBlock"}
FIELDS = {
    "Message": ("id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "usage"),
    "TextBlock": ("type", "text", "citations"),
    "ToolUseBlock": ("type", "id", "name", "input"),
    "Usage": ("input_tokens", "output_tokens"),
}


class SdkObject:
    """A reply or a block as the SDK hands it back: attributes
    (response.stop_reason, block.input), model_dump(), a pydantic repr."""

    def __init__(self, data, kind):
        self.__dict__["_data"], self.__dict__["_kind"] = data, kind

    def __getattr__(self, name):
        data, kind = self.__dict__["_data"], self.__dict__["_kind"]
        if name in data:
            return sdk_field(name, data[name])
        if name in FIELDS.get(kind, ()):
            return None
        raise AttributeError("'%s' object has no attribute '%s'" % (kind, name))

    def model_dump(self, mode="python", exclude_none=False, **options):
        import copy
        data = copy.deepcopy(self.__dict__["_data"])
        if exclude_none:
            data = dict((k, v) for k, v in data.items() if v is not None)
        return data

    to_dict = model_dump

    def model_dump_json(self, indent=None, exclude_none=False, **options):
        import json
        return json.dumps(self.model_dump(exclude_none=exclude_none), indent=indent, ensure_ascii=False)

    def __repr__(self):
        fields = ", ".join("%s=%r" % (k, getattr(self, k)) for k in self.__dict__["_data"])
        return "%s(%s)" % (self.__dict__["_kind"], fields)


def sdk_field(name, value):
    if name == "content" and isinstance(value, list):
        return [sdk_block(block) for block in value]
    if name == "usage" and isinstance(value, dict):
        return SdkObject(value, "Usage")
    return value


def sdk_block(block):
    if not isinstance(block, dict):
        return block
    return SdkObject(block, BLOCK_KINDS.get(block.get("type"), "ContentBlock"))


def sdk_errors():
    """The anthropic module's exceptions, as its own (`anthropic.X`)."""
    errors = {}

    def define(name, base, status=None):
        errors[name] = type(name, (base,), {"__module__": "anthropic", "status_code": status})
        return errors[name]

    api = define("APIError", Exception)
    status = define("APIStatusError", api)
    connection = define("APIConnectionError", api)
    define("APITimeoutError", connection)
    for name, code in (("BadRequestError", 400), ("AuthenticationError", 401),
                       ("PermissionDeniedError", 403), ("NotFoundError", 404),
                       ("RateLimitError", 429), ("InternalServerError", 500),
                       ("OverloadedError", 529)):
        define(name, status, code)
    return errors


def bad_request(errors, message):
    """anthropic.BadRequestError as the SDK raises it for the API's 400."""
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    text = "Error code: 400 - %r" % (body,)
    error = errors["BadRequestError"](text)
    error.message, error.body = text, body
    return error


class ScriptExhausted(Exception):
    """The scenario has no reply, outcome or result left for this call."""


def error_class(name, fallback=Exception):
    """The exception a scenario names: a builtin one, or one of that name."""
    import builtins
    found = getattr(builtins, name, None)
    if isinstance(found, type) and issubclass(found, BaseException):
        return found
    return type(name, (fallback,), {})


class Client:
    """client.messages.create(**request): logs the request, refuses it
    when the recorder says the API would (BadRequestError), else plays the
    scenario's next reply."""

    def __init__(self, replies, refuse, errors, recorder):
        self.messages = self
        self.replies, self.refuse, self.errors = iter(replies), refuse, errors
        self.recorder = recorder

    def create(self, **request):
        number = len(self.recorder.requests)
        refused = self.refuse.get(str(number))
        self.recorder.request(request, refused)
        if refused is not None:
            raise bad_request(self.errors, refused)
        reply = next(self.replies, None)
        if reply is None:
            raise ScriptExhausted()
        if isinstance(reply, dict) and "error" in reply:
            known = self.errors.get(reply["error"])
            raise (known or error_class(reply["error"], self.errors["APIError"]))()
        return SdkObject(reply, "Message") if isinstance(reply, dict) else reply


def anthropic_module(client, errors):
    import types
    module = types.ModuleType("anthropic")
    module.__dict__.update(errors)
    module.Anthropic = lambda *args, **options: client
    return module


def subprocess_module(process, exhausted):
    """subprocess with run() playing the scenario's process outcomes."""
    import subprocess as real
    import types
    module = types.ModuleType("subprocess")
    for name in ("PIPE", "STDOUT", "DEVNULL", "CompletedProcess", "TimeoutExpired",
                 "CalledProcessError", "SubprocessError"):
        setattr(module, name, getattr(real, name))
    outcomes = iter(process.get("each", []))

    def run(args, *rest, **options):
        outcome = process["always"] if "always" in process else next(outcomes, None)
        if outcome is None:
            raise OSError(exhausted)
        if outcome.get("timeout"):
            raise real.TimeoutExpired(args, options.get("timeout"))
        if "os_error" in outcome:
            raise OSError(outcome["os_error"])
        done = real.CompletedProcess(args, outcome["returncode"], outcome.get("stdout", ""),
                                     outcome.get("stderr", ""))
        if options.get("check") and done.returncode:
            raise real.CalledProcessError(done.returncode, args, done.stdout, done.stderr)
        return done

    module.run = run
    return module


def tool_stand_in(name, outcomes):
    """A tool that plays its scripted outcomes: returns or raises."""
    left = iter(outcomes)

    def tool(*args, **tool_input):
        outcome = next(left, None)
        if outcome is None:
            raise ScriptExhausted("no more results for %s" % name)
        if "raises" in outcome:
            raise error_class(outcome["raises"])(str(outcome.get("message", "")))
        return outcome.get("returns")

    tool.__name__ = tool.__qualname__ = name
    return tool


def stand_ins(script, refuse, recorder):
    """The names a `file` scenario's run finds before the program runs,
    and the modules it imports instead of the real ones."""
    errors = sdk_errors()
    client = Client(script["model"], refuse, errors, recorder)
    tools = dict((name, tool_stand_in(name, outcomes))
                 for name, outcomes in sorted(script["tool_results"].items()))
    anthropic = anthropic_module(client, errors)
    subprocess = subprocess_module(script["process"], script["no_more_runs"])
    names = dict(tools)
    names.update({
        "QUESTION": script["question"], "SYSTEM": script["system"], "TOOLS": script["tools"],
        "MODEL": "teaching-model", "MAX_CALLS": script["max_calls"],
        "TIMEOUT_S": script["timeout_s"], "TOOL_FUNCTIONS": tools, "client": client,
        "anthropic": anthropic, "subprocess": subprocess,
    })
    return names, {"anthropic": anthropic, "subprocess": subprocess}


class Recorder:
    """The tracer: one step per call, line, exception and return of the
    listed functions (and the functions nested in them), with the locals
    previewed, the record's length and the output's finished lines."""

    def __init__(self, job, printed):
        self.file, self.name = job["program"]["file"], job["record"]
        self.ranges = [(f["name"], f["start"], f["end"]) for f in job["functions"]]
        self.max_steps = job["limits"]["steps"]
        self.printed, self.preview = printed, Preview()
        self.steps, self.values, self.index, self.requests = [], [], {}, []
        self.stack, self.raising, self.listed_in = [], {}, {}
        self.record, self.seen, self.appended, self.record_len = None, [], [], 0
        self.records = ()  # (every list that has been the record)
        self.lists = set()
        self.end, self.problem = None, None

    def function_of(self, code):
        if code not in self.listed_in:
            found = None
            if code.co_filename == self.file and not code.co_name.startswith("<"):
                found = next((n for n, a, b in self.ranges if a <= code.co_firstlineno <= b), None)
            self.listed_in[code] = found
        return self.listed_in[code]

    def call(self, frame, event, arg):
        if event != "call" or self.problem or self.function_of(frame.f_code) is None:
            return None
        self.stack.append(frame)
        self.take(frame, "call")
        return self.local

    def local(self, frame, event, arg):
        if self.problem:
            return None
        if event == "line":
            self.raising.pop(id(frame), None)
            self.take(frame, "line")
        elif event == "exception":
            self.raising[id(frame)] = exception_line(arg[0], arg[1])
            self.take(frame, "exception", raised=self.raising[id(frame)])
        elif event == "return":
            self.returned(frame, arg)
        return self.local

    def returned(self, frame, value):
        if id(frame) in self.raising:
            end = {"raised": self.raising.pop(id(frame))}
        else:
            end = {"returned": self.intern(self.preview.value(value))}
        self.take(frame, "return", **end)
        self.stack.pop()
        if not self.stack:
            self.end = end

    def take(self, frame, event, **extra):
        if len(self.steps) >= self.max_steps:
            self.stop({"kind": "steps", "limit": self.max_steps})
        self.find_record(frame)
        code = frame.f_code
        step = {"function": self.function_of(code), "line": frame.f_lineno,
                "depth": len(self.stack) - 1, "event": event, "locals": self.locals_of(frame),
                "record_len": self.record_len, "output_len": self.printed.lines}
        if code.co_name != step["function"]:
            step["frame"] = code.co_name
        step.update(extra)
        self.steps.append(step)

    def locals_of(self, frame):
        shown = {}
        for name, value in list(frame.f_locals.items()):
            if not name.startswith("__"):
                shown[name] = self.intern(self.preview.value(value))
        return shown

    def intern(self, value):
        import json
        key = json.dumps(value, sort_keys=True, ensure_ascii=False)
        if key not in self.index:
            self.index[key] = len(self.values)
            self.values.append(value)
        return self.index[key]

    def find_record(self, frame):
        """The record: the list the outermost listed frame names `record`.
        Until one has it, the names of the lists they hold are kept (said
        when none ever has it: the manifest names another list)."""
        for outer in self.stack:
            value = outer.f_locals.get(self.name)
            if isinstance(value, list):
                self.track(value, frame)
                return
        if self.record is None:
            for outer in self.stack:
                self.lists.update(k for k, v in outer.f_locals.items() if isinstance(v, list))

    def track(self, record, frame):
        if not is_record(record, self.records):
            self.records += (record,)
        if record is not self.record and self.record is not None:
            if to_json(record[:len(self.seen)], 0, self.records) != self.seen:
                self.shrank(len(record), frame)
        self.record = self.preview.record = record
        if len(record) < len(self.seen):
            self.shrank(len(record), frame)
        for message in record[len(self.seen):]:
            # (at the depth the whole record's conversion meets it)
            self.seen.append(to_json(message, 1, self.records))
            self.appended.append(len(self.steps))
        self.record_len = len(record)

    def shrank(self, now, frame):
        self.stop({"kind": "record_shrank", "before": len(self.seen), "now": now,
                   "line": frame.f_lineno, "step": len(self.steps)})

    def request(self, request, refused):
        step = len(self.steps) - 1 if self.steps else None
        self.requests.append({"step": step, "request": to_json(request), "refused": refused})

    def stop(self, problem):
        if self.problem is None:
            self.problem = problem
        sys.settrace(None)
        for frame in self.stack:
            frame.f_trace = None
        raise Stop(problem["kind"])

    def changed_message(self):
        """The first message that is not what it was when appended."""
        final = to_json(self.record, 0, self.records) if self.record is not None else []
        for i, (now, then) in enumerate(zip(final, self.seen)):
            if now != then:
                return {"kind": "record_changed", "message": i, "step": self.appended[i]}
        return None


def where(error, files):
    """`file:line` of the innermost frame of the program or the setup."""
    found, tb = None, error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in files:
            found = "%s:%d" % (tb.tb_frame.f_code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def unreadable_messages(record, records):
    """[index, path, class name] of each message of the record that holds
    a value the figure can only show as its repr text."""
    said = []
    for i, message in enumerate(record or []):
        found = []
        to_json(message, 1, records, (), found)
        if found:
            said.append([i, found[0][0], found[0][1]])
    return said


def results(recorder, printed, escaped, files):
    """What the run gave, as the recorder's JSON."""
    lines = printed.text().split("\n")
    if lines[-1] == "":
        lines.pop()
    shown = recorder.steps[-1]["output_len"] if recorder.steps else 0
    out = {"python": version(), "steps": recorder.steps, "values": recorder.values,
           "record": to_json(recorder.record, 0, recorder.records) if recorder.record is not None else [],
           "output": lines[:shown], "printed": lines[shown:], "end": recorder.end,
           "requests": recorder.requests, "problem": recorder.problem,
           "record_found": recorder.record is not None, "lists": sorted(recorder.lists),
           "unreadable": unreadable_messages(recorder.record, recorder.records)}
    if escaped is not None and not isinstance(escaped, (Stop, SystemExit)):
        line = exception_line(type(escaped), escaped)
        out["printed"].append(line)
        out["end"] = {"raised": line}
        out["escaped"] = {"line": line, "where": where(escaped, files)}
    if out["problem"] is None:
        out["problem"] = recorder.changed_message()
    return out


class Offline:
    """The client `anthropic.Anthropic()` gives a run without a scenario
    file: the recorder never reaches the real API."""

    def __init__(self, errors):
        self.messages, self.errors = self, errors

    def create(self, **request):
        raise self.errors["APIConnectionError"](
            "the recorder runs offline: give this scenario a file, or the setup its own stand-in client")


def prepare(job, recorder):
    """The run's namespace, and the modules it sees instead of the real
    ones (`anthropic` always: a recording never reaches the API)."""
    import builtins
    scenario = job["scenario"]
    names = {"__name__": "__main__", "__builtins__": builtins, "__file__": job["program"]["file"],
             "SCENARIO": scenario["id"], "LANG": scenario["lang"]}
    if scenario.get("script") is None:
        errors = sdk_errors()
        return names, {"anthropic": anthropic_module(Offline(errors), errors)}
    more, modules = stand_ins(scenario["script"], job.get("refuse", {}), recorder)
    names.update(more)
    return names, modules


def arm(seconds, recorder):
    """The time budget: SIGALRM stops the run; faulthandler ends the
    process a little later if the program is stuck where no signal is
    heard (C code holding the interpreter)."""
    import faulthandler
    import signal

    def alarm(signum, frame):
        recorder.stop({"kind": "time", "seconds": seconds})

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    faulthandler.dump_traceback_later(seconds + 3, exit=True, file=sys.__stderr__)


def disarm():
    import faulthandler
    import signal
    signal.setitimer(signal.ITIMER_REAL, 0)
    faulthandler.cancel_dump_traceback_later()


def execute(program, job, recorder, names):
    codes = [compile(program, job["program"]["file"], "exec")]
    if job.get("setup"):
        codes.append(compile(job["setup"]["text"], job["setup"]["file"], "exec"))
    sys.settrace(recorder.call)
    try:
        for code in codes:
            exec(code, names)
    finally:
        sys.settrace(None)


def run(program, job):
    limits = job["limits"]
    recorder = Recorder(job, None)

    def over():
        recorder.stop({"kind": "output", "limit": limits["output_chars"]})

    printed = Printed(limits["output_chars"], over)
    recorder.printed = printed
    names, modules = prepare(job, recorder)
    saved = dict((name, sys.modules.get(name)) for name in modules)
    streams = (sys.stdout, sys.stderr)
    sys.modules.update(modules)
    sys.stdout, sys.stderr = printed, Printed(limits["output_chars"], lambda: None)
    escaped = None
    arm(limits["seconds"], recorder)
    try:
        execute(program, job, recorder, names)
    except BaseException as error:
        escaped = error
    finally:
        disarm()
        sys.stdout, sys.stderr = streams
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    files = [job["program"]["file"], (job.get("setup") or {}).get("file")]
    return results(recorder, printed, escaped, files)


# What the program defines and marks (MODE inspect).

def syntax_error(text, name):
    try:
        compile(text, name, "exec")
    except SyntaxError as error:
        return {"file": name, "line": error.lineno, "text": exception_line(SyntaxError, error)}
    return None


def defined(tree):
    """The program's top-level functions: name, first line (a decorator's),
    the def's line, the last line."""
    import ast
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            found.append({"name": node.name, "start": start, "line": node.lineno,
                          "end": node.end_lineno})
    return found


def statements(tree):
    """[first, last] of every statement (or a compound statement's header)
    that spans several lines."""
    import ast
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            body = getattr(node, "body", None)
            last = body[0].lineno - 1 if isinstance(body, list) and body else node.end_lineno
            if last > node.lineno:
                spans.append([node.lineno, last])
    return sorted(spans)


def marks(text):
    """Every mark (`#|` and its labels, ending a comment): its line,
    column, labels, and whether it is alone on its line (no code)."""
    import io
    import tokenize
    found, code_lines = [], set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        at = token.string.find("#|") if token.type == tokenize.COMMENT else -1
        if at >= 0:
            found.append({"line": token.start[0], "column": token.start[1] + at,
                          "labels": token.string[at + 2:].split()})
        elif token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                tokenize.DEDENT, tokenize.ENDMARKER):
            code_lines.update(range(token.start[0], token.end[0] + 1))
    for mark in found:
        mark["alone"] = mark["line"] not in code_lines
    return found


def local_names(text, name, functions):
    """Per top-level function, every name it or a function inside it binds."""
    code = compile(text, name, "exec")
    names = {}

    def walk(code, owner):
        if owner is not None:
            names.setdefault(owner, set()).update(code.co_varnames + code.co_cellvars + code.co_freevars)
        for const in code.co_consts:
            if hasattr(const, "co_code"):
                inner = owner
                if inner is None:
                    inner = next((f["name"] for f in functions if f["line"] == const.co_firstlineno
                                  or f["start"] == const.co_firstlineno), None)
                walk(const, inner)

    walk(code, None)
    return dict((k, sorted(v)) for k, v in names.items())


def inspect(program, job):
    import ast
    out = {"python": version(), "syntax_error": syntax_error(program, job["program"]["file"])}
    if out["syntax_error"] is None and job.get("setup"):
        out["syntax_error"] = syntax_error(job["setup"]["text"], job["setup"]["file"])
    if out["syntax_error"] is not None:
        return out
    tree = ast.parse(program, job["program"]["file"])
    out["defs"] = defined(tree)
    out["statements"] = statements(tree)
    out["marks"] = marks(program)
    out["locals"] = local_names(program, job["program"]["file"], out["defs"])
    return out


def main(program_path, job_path, mode):
    import json
    import os
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    with open(program_path, encoding="utf-8") as f:
        program = f.read()
    out_fd = os.dup(1)
    if mode == "run":
        # What the program writes past sys.stdout (os.write(1, …)) is not
        # part of the harness's answer.
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        found = run(program, job)
    else:
        found = inspect(program, job)
    data = json.dumps(found, ensure_ascii=False).encode("utf-8", "replace")
    while data:
        data = data[os.write(out_fd, data):]


if __name__ == "__main__":
    if sys.version_info[:2] < NEEDED:
        sys.stdout.write('{"python_too_old": "%s"}' % version())
    else:
        main(sys.argv[1], sys.argv[2], sys.argv[3])
