"""Checked YAML for aesdse's input files: a safe loader that records line numbers and refuses
what no input file needs, and the messages every validator shares.

Both validators of hand-written files, :mod:`aesdse.experiment` (experiment files) and
:mod:`aesdse.report.published` (published result tables), load YAML through :func:`load` and word their
errors with the helpers here, so a bad value reads the same in both: ``file:line: what: value
must be ...``.

What :func:`load` refuses, each as a :class:`YamlError` with the line:

- bytes that are not UTF-8, and characters YAML does not allow (control characters);
- nesting deeper than ``max_depth`` (the composer and constructor recurse: 1,000 levels would
  end in a ``RecursionError``);
- more than ``max_nodes`` nodes, counting each alias as the whole node it repeats (an alias
  "billion laughs" bomb is a few lines that expand to 10^9 nodes);
- aliases and anchors altogether unless ``aliases=True`` (experiment files have no use for them;
  the published tables share architecture descriptions through them);
- keys that are lists or mappings (``? [a, b]: 1``) and merge keys (``<<:``);
- duplicate keys;
- a value its explicit tag does not take (``!!int abc``, ``!!bool maybe``), naming the tag and
  the value; a syntax error shows its line (``!!binary ***``).

Mappings load as :class:`LineDict` and sequences as :class:`LineList`, which remember the line of
the node, of each key and of each item. Messages never show a whole value: :func:`show` clips
its ``repr`` to :data:`SHOWN_CHARS` characters.

The checks of one value (:func:`typed`, :func:`bounded`, :func:`one_of`) raise a
:class:`YamlError` at the value's line, or its item's in a list.
"""

import math

import yaml

__all__ = ["YamlError", "LineDict", "LineList", "load", "line_of", "item_line", "show", "kind",
           "allowed", "check_keys", "clip", "SHOWN_CHARS", "as_list", "typed", "bounded",
           "one_of"]

#: Longest repr of a value shown in a message.
SHOWN_CHARS = 80


class YamlError(Exception):
    """A YAML input is malformed or breaks its schema, at ``line`` (1-based)."""

    def __init__(self, line: int, message: str):
        super().__init__(f"{line}: {message}")
        self.line, self.message = line, message


class LineDict(dict):
    """A mapping that remembers its line and the line of each key."""
    line = 0
    key_lines: dict


class LineList(list):
    """A sequence that remembers its line and the line of each item."""
    line = 0
    item_lines: list


_MERGE_TAG = "tag:yaml.org,2002:merge"


class _Loader(yaml.SafeLoader):
    """The safe loader, recording lines and limiting depth, size and aliases."""

    max_depth = 50
    max_nodes = 100_000
    aliases = False

    def __init__(self, stream):
        super().__init__(stream)
        self._depth = 0
        self._nodes = 0
        self._sizes = {}

    def compose_node(self, parent, index):
        event = self.peek_event()
        line = event.start_mark.line + 1
        if isinstance(event, yaml.AliasEvent):
            if not self.aliases:
                raise YamlError(line, f"aliases (*{clip(event.anchor, 40)}) are not allowed "
                                      f"here; write the value out")
            node = super().compose_node(parent, index)
            self._count(line, self._size(node))
            return node
        if getattr(event, "anchor", None) is not None and not self.aliases:
            raise YamlError(line, f"anchors (&{clip(event.anchor, 40)}) are not allowed here; "
                                  f"write the value out")
        self._depth += 1
        if self._depth > self.max_depth:
            raise YamlError(line, f"nesting deeper than {self.max_depth} levels")
        self._count(line, 1)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def _count(self, line, n):
        self._nodes += n
        if self._nodes > self.max_nodes:
            raise YamlError(line, f"more than {self.max_nodes} values (aliases count as the "
                                  f"values they repeat)")

    def _size(self, node):
        # Nodes a (possibly aliased) node stands for once expanded; memoised by identity, so
        # counting a bomb of shared nodes is linear in the file.
        size = self._sizes.get(id(node))
        if size is None:
            if isinstance(node, yaml.MappingNode):
                size = 1 + sum(self._size(k) + self._size(v) for k, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                size = 1 + sum(self._size(item) for item in node.value)
            else:
                size = 1
            size = min(size, self.max_nodes + 1)
            self._sizes[id(node)] = size
        return size


    def construct_object(self, node, deep=False):
        # A tag's constructor fails on a value it does not take in whatever way it fails
        # (`!!int abc`: ValueError, `!!bool maybe`: KeyError, `!!timestamp x`: AttributeError):
        # each becomes a YamlError at the value's line, naming the tag and the value.
        try:
            return super().construct_object(node, deep=deep)
        except (YamlError, yaml.YAMLError):
            raise
        except Exception as e:
            raise YamlError(node.start_mark.line + 1, _bad_tagged_value(node, e)) from None


#: The YAML tags of the safe loader, as :func:`_bad_tagged_value` names them.
_TAG_NAMES = {"bool": "a boolean (true or false)", "int": "an integer", "float": "a number",
              "timestamp": "a date or time (YYYY-MM-DD, ISO 8601)",
              "binary": "base64 data", "null": "null", "str": "a string", "set": "a set",
              "omap": "an ordered mapping", "pairs": "a list of pairs", "seq": "a list",
              "map": "a mapping"}
_YAML_TAG = "tag:yaml.org,2002:"


def _bad_tagged_value(node, error: Exception) -> str:
    """Why ``node``, whose tag's constructor raised ``error``, has no value: the tag as written
    (``!!int``), the value and what the tag takes."""
    short = node.tag[len(_YAML_TAG):] if node.tag.startswith(_YAML_TAG) else None
    tag = f"!!{short}" if short is not None else f"!<{node.tag}>"
    if isinstance(node, yaml.ScalarNode):
        value = show(node.value)
    else:
        value = "a list" if isinstance(node, yaml.SequenceNode) else "a mapping"
    wanted = _TAG_NAMES.get(short, "a value of that tag")
    reason = f" ({clip(error, 80)})" if isinstance(error, ValueError) and str(error) else ""
    return f"{tag} {value} is not {wanted}{reason}"


def _construct_mapping(loader, node):
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        if key_node.tag == _MERGE_TAG:
            raise YamlError(line, "merge keys (<<) are not supported; write the keys out")
        if not isinstance(key_node, yaml.ScalarNode):
            what = "a list" if isinstance(key_node, yaml.SequenceNode) else "a mapping"
            raise YamlError(line, f"a key must be a plain value, not {what}")
        key = loader.construct_object(key_node, deep=True)
        if key in result:
            raise YamlError(line, f"duplicate key {show(key)}")
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = line
    return result


def _construct_sequence(loader, node):
    result = LineList(loader.construct_object(n, deep=True) for n in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [n.start_mark.line + 1 for n in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load(data, *, aliases: bool = False, max_depth: int = 50, max_nodes: int = 100_000):
    """Parse YAML ``data`` (``str`` or UTF-8 ``bytes``) with the safe loader and the limits of
    the module docstring.

    Raises
    ------
    YamlError
        For any malformed input, with its line.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            line = data[:e.start].count(b"\n") + 1
            column = e.start - data.rfind(b"\n", 0, e.start)
            raise YamlError(line, f"not UTF-8 text: byte 0x{data[e.start]:02x} at column "
                                  f"{column}") from None
    _refuse_unseen_line_breaks(data)
    loader_class = type("Loader", (_Loader,), {"aliases": aliases, "max_depth": max_depth,
                                               "max_nodes": max_nodes})
    try:
        loader = loader_class(data)
    except yaml.reader.ReaderError as e:
        raise _reader_error(data, e) from None
    try:
        return loader.get_single_data()
    except yaml.reader.ReaderError as e:
        raise _reader_error(data, e) from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        what = e.problem or e.context or "invalid YAML"
        raise YamlError(line, f"YAML syntax error: {clip(what, 120)}{_source(data, line)}") \
            from None
    except yaml.YAMLError as e:
        raise YamlError(1, f"YAML error: {clip(str(e), 120)}") from None
    finally:
        loader.dispose()


def _source(text: str, line: int) -> str:
    """`` in: <line>`` for a message about line ``line`` of ``text`` (the tag and value a
    syntax error is in, as in ``!!binary ***``), or nothing for a blank line."""
    lines = text.split("\n")
    shown = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return f" in {clip(shown, 60)!r}" if shown else ""


#: Characters YAML counts as line breaks but editors do not: inside a value they would shift every
#: later error line by one against the editor's count.
UNSEEN_LINE_BREAKS = {"\x85": "U+0085 (NEL)", "\u2028": "U+2028 (LINE SEPARATOR)",
                      "\u2029": "U+2029 (PARAGRAPH SEPARATOR)"}


def _refuse_unseen_line_breaks(text: str) -> None:
    found = [(text.find(char), char) for char in UNSEEN_LINE_BREAKS if char in text]
    if found:
        position, char = min(found)
        line = text.count("\n", 0, position) + 1
        raise YamlError(line, f"character {UNSEEN_LINE_BREAKS[char]} is a line break to YAML "
                              f"but not to most editors; write it as an escape in a "
                              f"double-quoted string (\"\\u{ord(char):04x}\")")


def _reader_error(text, e):
    line = text[:e.position].count("\n") + 1 if isinstance(e.position, int) else 1
    char = e.character
    shown = f"#x{char:04x}" if isinstance(char, int) else repr(char)
    return YamlError(line, f"character {shown} is not allowed in YAML (a control character?)")


# --- messages -----------------------------------------------------------------------------------

def clip(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters, ending in ``...`` when cut."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def show(value) -> str:
    """``repr(value)`` clipped to :data:`SHOWN_CHARS`, for messages. Containers are written
    only as far as the clip shows (a list of a million items, or an alias bomb, costs no more
    than a short one)."""
    parts: list[str] = []
    _show(value, parts, [SHOWN_CHARS + 1])
    return clip("".join(parts))


def _show(value, parts, budget):
    # Appends the repr of value to parts until budget[0] characters are written.
    def put(text):
        parts.append(text[:max(budget[0], 0)])
        budget[0] -= len(text)
    if isinstance(value, (dict, list)):
        put("{" if isinstance(value, dict) else "[")
        for n, item in enumerate(value.items() if isinstance(value, dict) else value):
            if budget[0] <= 0:
                return
            if n:
                put(", ")
            if isinstance(value, dict):
                _show(item[0], parts, budget)
                put(": ")
                _show(item[1], parts, budget)
            else:
                _show(item, parts, budget)
        put("}" if isinstance(value, dict) else "]")
    elif isinstance(value, float) and not math.isfinite(value):
        put({"inf": ".inf", "-inf": "-.inf", "nan": ".nan"}[repr(value)])
    else:
        put(repr(value)[:budget[0] + 1])


def kind(value) -> str:
    """What a loaded value is, in words: ``"a mapping"``, ``"a list"``, ``"a number"``..."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "empty"
    return type(value).__name__


def allowed(values) -> str:
    """Allowed values for a message: ``"lut, composite"``, booleans as YAML writes them."""
    return clip(", ".join(str(v).lower() if isinstance(v, bool) else str(v) for v in values),
                 400)


def line_of(node, key=None, default: int = 1) -> int:
    """The line of ``node`` (a :class:`LineDict` or :class:`LineList`) or of its ``key``;
    ``default`` for a scalar, which does not know its line."""
    if key is not None and isinstance(node, LineDict):
        return node.key_lines.get(key, node.line)
    return getattr(node, "line", 0) or default


def item_line(mapping, key, index: int = 0) -> int:
    """The line of item ``index`` of ``mapping[key]`` when it is a list, else of ``key``."""
    value = mapping[key] if isinstance(mapping, dict) and key in mapping else None
    if isinstance(value, LineList) and index < len(value.item_lines):
        return value.item_lines[index]
    return line_of(mapping, key)


def check_keys(mapping, keys, where: str, line: int = 1) -> None:
    """``mapping`` must be a mapping whose keys are all in ``keys``; ``line`` is where it is,
    for a scalar found in its place."""
    if not isinstance(mapping, dict):
        raise YamlError(line_of(mapping, default=line),
                        f"{where} must be a mapping, not {kind(mapping)}")
    for key in mapping:
        if key not in keys:
            raise YamlError(line_of(mapping, key),
                            f"unknown key {show(key)} in {where}; allowed keys: {allowed(keys)}")


# --- checked values ---------------------------------------------------------------------------

def as_list(value) -> list:
    """A value that may be one item or a list of them, as a list."""
    return list(value) if isinstance(value, list) else [value]


def typed(mapping, key, value, index, kinds, what):
    """``value`` (item ``index`` of ``mapping[key]``) must be of one of ``kinds``; ``what`` names
    them in the message."""
    # bool is an int in Python; keep "true" out of numeric fields and numbers out of booleans.
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise YamlError(item_line(mapping, key, index),
                     f"{key}: {show(value)} must be {what}, not {kind(value)}")
    return value


def bounded(mapping, key, value, index, low, high, what="", low_open=False):
    """``value`` (already typed) must be finite and in ``low..high`` (``low`` excluded when
    ``low_open``)."""
    ok = isinstance(value, int) or math.isfinite(value)
    ok = ok and (value > low if low_open else value >= low) and value <= high
    if not ok:
        low_word = f"above {low}" if low_open else f"at least {low}"
        raise YamlError(item_line(mapping, key, index),
                     f"{key}: {show(value)} must be {low_word} and at most {high}{what}")
    return value


def one_of(mapping, key, value, index, choices):
    """``value`` must be one of ``choices``, of the same type (``1`` is not ``true``, ``1.0``
    is not ``1``)."""
    if not any(type(value) is type(c) and value == c for c in choices):
        raise YamlError(item_line(mapping, key, index),
                     f"{key}: {show(value)} is not one of: {allowed(choices)}")
    return value
