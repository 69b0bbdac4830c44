"""Values as JSON that cannot run anything when read: engine states, kept replays, parsed sources.

What rulepress keeps between runs (the content store) and ships to the browser (the referee's positions) used to be
pickles, and reading a pickle may call any function it names.  This codec writes the same values as JSON, and
reading one back only ever builds the containers JSON describes and instances of the classes its :class:`Codec`
was given (their ``__new__`` bypassed, attributes set one by one): nothing named in the data is imported or called.

A value may hold ``None``, booleans, numbers (``nan`` and the infinities too), strings, bytes, lists, tuples,
dicts with any hashable keys (their order kept), sets and frozensets (written in a stable order, so the same value
gives the same bytes in every process), deques, dates and times, :class:`random.Random` (its state),
:func:`functools.partial` of a known function, and instances of the codec's classes: plain classes (their
``__dict__`` and ``__slots__``), dataclasses, named tuples, enums and subclasses of the built-in types.  A value
held twice (the same list in two places) is written once and referred to after, so a state that shares a list
between two of its parts shares it again when read.

:func:`state_codec` is the codec of one engine written on :class:`rulepress.basegame.BaseGame`: the classes and
functions defined in the engine's own package (named relative to it, so a position reads the same under whatever
package name the engine is imported as, the browser's included) and rulepress's own state types (``Chance``,
``Event``, ``Move``, ``Memory``, ``Setup``).  Anything else in a state (a lambda, a lock, an open file) does not encode:
:class:`CodecError`, and the caller does without (no move can be tried from that position).
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import functools
import json
import math
import random
import struct
import sys
import types
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

TAG = "#"  # the key of a tagged value; a dict with a string key "#" of its own is written as pairs
_AS_THEY_ARE = frozenset({str, int, bool, type(None)})  # written as JSON writes them (a float may be nan)
_READ_AS_THEY_ARE = frozenset({str, int, bool, float, type(None)})  # what JSON reads back as itself
_BUILTINS = (dict, list, tuple, set, frozenset, str, bytes, int, float)  # what a class of the codec may subclass
MAX_DEPTH = 200  # nesting of a value (a state nests a few levels; a replay ten or so)
LONG = 200  # characters from which Codec.pack writes a text apart


class CodecError(ValueError):
    """A value the codec cannot write, or data that is not a value it wrote."""


class Codec:
    """Encode and decode values whose objects are instances of ``classes`` (name -> class) or, with ``package``,
    of classes defined in that package (named relative to it: ``.state:State``).  ``functions`` may appear in a
    :func:`functools.partial` (the engine's package's functions are known as its classes are)."""

    def __init__(self, classes: Mapping[str, type] = (), functions: Mapping[str, Any] = (),
                 package: str | None = None) -> None:
        self.classes: dict[str, Any] = dict(classes)
        self.classes.update(functions)
        self.names: dict[int, str] = {id(value): name for name, value in self.classes.items()}
        self.package = package

    # --- names ------------------------------------------------------------------------------------------

    def name_of(self, value: Any) -> str:
        """The name ``value`` (a class or a function) is written by."""
        known = self.names.get(id(value))
        if known is not None:
            return known
        module = getattr(value, "__module__", None) or ""
        qualname = getattr(value, "__qualname__", "")
        if self.package and (module == self.package or module.startswith(self.package + ".")) \
                and "<" not in qualname:  # (a lambda, or a class defined inside a function)
            return f"{module[len(self.package):] or '.'}:{qualname}"
        raise CodecError(f"a {_kind(value)} {module}.{qualname} is not one the codec knows")

    def named(self, name: Any, function: bool = False) -> Any:
        """The class (or function) ``name`` names: one given to the codec, or one defined in its package's modules
        (looked up, never imported: the engine imported them)."""
        if not isinstance(name, str):
            raise CodecError(f"a class name must be text, not {type(name).__name__}")
        if name in self.classes:
            found = self.classes[name]
        elif self.package and name.startswith(".") and ":" in name:
            module_name, _, qualname = name.partition(":")
            module_name = self.package + ("" if module_name == "." else module_name)
            module = sys.modules.get(module_name)
            if module is None or not qualname:
                raise CodecError(f"no module {module_name} is loaded")
            found = module
            for part in qualname.split("."):
                found = getattr(found, part, None)  # the module's own attribute: its class or function
            if getattr(found, "__module__", None) != module_name or getattr(found, "__qualname__", None) != qualname:
                raise CodecError(f"{name} is not defined in {module_name}")
        else:
            raise CodecError(f"{name!r} is not a class the codec knows")
        if function and not isinstance(found, types.FunctionType | types.BuiltinFunctionType | type):
            raise CodecError(f"{name} is not a function")
        if not function and not isinstance(found, type):
            raise CodecError(f"{name} is not a class")
        return found

    # --- encoding ---------------------------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        """``value`` as plain JSON data (dicts with string keys, lists, strings, numbers, booleans, None)."""
        return _Encoder(self).value(value, 0)

    def dumps(self, value: Any) -> str:
        return json.dumps(self.encode(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    # --- decoding ---------------------------------------------------------------------------------------

    def decode(self, data: Any) -> Any:
        """The value :meth:`encode` wrote as ``data``; :class:`CodecError` for anything it could not have written."""
        try:
            return _Decoder(self).value(data, 0)
        except CodecError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RecursionError) as exc:
            raise CodecError(f"not a value this codec wrote ({type(exc).__name__}: {exc})") from None

    def loads(self, text: str | bytes) -> Any:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise CodecError(f"not JSON ({type(exc).__name__})") from None
        return self.decode(data)

    def pack(self, value: Any) -> bytes:
        """``value`` as the store keeps it: one line of JSON (the value, and the length of each long text), then
        the long texts themselves, one after another as UTF-8.  A replay is mostly diagrams' SVG, whose every quote
        JSON would escape and unescape; apart, they are copied as they are."""
        table: list[str] = []
        encoded = _Encoder(self, table).value(value, 0)
        texts = [text.encode("utf-8", "surrogatepass") for text in table]
        head = json.dumps({"v": encoded, "t": [len(text) for text in texts]}, ensure_ascii=False,
                          separators=(",", ":"), allow_nan=False).encode("utf-8", "surrogatepass")
        return b"".join([head, b"\n", *texts])

    def unpack(self, data: bytes) -> Any:
        """The value :meth:`pack` wrote as ``data``; :class:`CodecError` for anything else."""
        head, _, rest = data.partition(b"\n")
        try:
            found = json.loads(head)
            lengths = found["t"]
            if type(lengths) is not list or not all(type(n) is int and n >= 0 for n in lengths) \
                    or sum(lengths) != len(rest):
                raise ValueError("the texts' lengths are not the data's")
            table, start = [], 0
            for length in lengths:
                table.append(rest[start:start + length].decode("utf-8", "surrogatepass"))
                start += length
            encoded = found["v"]
        except (ValueError, TypeError, KeyError, RecursionError) as exc:
            raise CodecError(f"not a value this codec packed ({type(exc).__name__})") from None
        try:
            return _Decoder(self, table).value(encoded, 0)
        except CodecError:
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, RecursionError) as exc:
            raise CodecError(f"not a value this codec wrote ({type(exc).__name__}: {exc})") from None


def _kind(value: Any) -> str:
    return "class" if isinstance(value, type) else "function" if callable(value) else type(value).__name__


def _fields(value: Any) -> list[tuple[str, Any]]:
    """An instance's attributes: its slots (each class's in the MRO, base first), then its ``__dict__``."""
    found: list[tuple[str, Any]] = []
    seen: set[str] = set()
    for klass in reversed(type(value).__mro__):
        slots = klass.__dict__.get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot in ("__dict__", "__weakref__") or slot in seen:
                continue
            seen.add(slot)
            if slot.startswith("__") and not slot.endswith("__"):
                slot = f"_{klass.__name__.lstrip('_')}{slot}"  # a private slot's mangled name
            try:
                found.append((slot, object.__getattribute__(value, slot)))
            except AttributeError:  # a slot never set
                continue
    own = getattr(value, "__dict__", None)
    if isinstance(own, dict):
        found += [(name, item) for name, item in own.items() if name not in seen]
    return found


class _Encoder:
    def __init__(self, codec: Codec, table: list[str] | None = None) -> None:
        self.codec = codec
        self.seen: dict[int, int] = {}  # id of a mutable value -> its number, in the order first met
        self.held: list[Any] = []  # what was numbered (so no id is reused while encoding)
        self.table = table  # long texts, written apart (see Codec.pack)
        self.inline = _AS_THEY_ARE if table is None else _AS_THEY_ARE - {str}

    def _number(self, value: Any) -> dict[str, Any] | None:
        """A reference to ``value`` when it was met before; else None, and it gets the next number."""
        number = self.seen.get(id(value))
        if number is not None:
            return {TAG: "ref", "v": number}
        self.seen[id(value)] = len(self.held)
        self.held.append(value)
        return None

    def value(self, value: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise CodecError(f"nested deeper than {MAX_DEPTH} levels")
        kind = type(value)
        if kind is str:
            if self.table is None or len(value) < LONG:
                return value
            self.table.append(value)
            return {TAG: "text", "v": len(self.table) - 1}
        if kind is bool or kind is int or value is None:
            return value
        if kind is float:
            return value if math.isfinite(value) else {TAG: "float", "v": repr(value)}
        deeper = depth + 1
        if kind is list:
            return self._number(value) or self._items(value, deeper)
        if kind is dict:
            return self._number(value) or self._dict(value, deeper)
        if kind is tuple:
            return {TAG: "tuple", "v": self._items(value, deeper)}
        if kind is set or kind is frozenset:
            name = "set" if kind is set else "frozenset"
            return (kind is set and self._number(value)) or {TAG: name, "v": self._members(value, deeper)}
        if kind is bytes:
            return {TAG: "bytes", "v": base64.b64encode(value).decode("ascii")}
        if kind is deque:
            return self._number(value) or {TAG: "deque", "v": [self.value(item, deeper) for item in value],
                                           "max": value.maxlen}
        if kind is datetime.date:
            return {TAG: "date", "v": value.isoformat()}
        if kind is datetime.datetime:
            if value.tzinfo is not None and not isinstance(value.tzinfo, datetime.timezone):
                raise CodecError(f"a time in zone {value.tzinfo!r} does not encode (only fixed offsets do)")
            return {TAG: "datetime", "v": value.isoformat()}
        if kind is random.Random:
            version, internal, gauss = value.getstate()  # 625 words of 32 bits: packed, a third of them as digits
            return self._number(value) or {TAG: "random", "v": [version, base64.b64encode(
                struct.pack(f"<{len(internal)}I", *internal)).decode("ascii"), gauss]}
        if kind is functools.partial:
            return {TAG: "partial", "f": self.codec.name_of(value.func),
                    "a": [self.value(item, deeper) for item in value.args],
                    "k": self.value(dict(value.keywords), deeper)}  # a dict of its own: numbered, as read
        if isinstance(value, type | types.FunctionType):
            raise CodecError(f"a {_kind(value)} ({value.__qualname__}) is not data")
        return self._object(value, deeper)

    def _items(self, value: Iterable[Any], depth: int) -> list[Any]:
        """Items written in order; text, whole numbers, booleans and None as they are (most of a state), without
        a call each."""
        encode, inline = self.value, self.inline
        return [item if type(item) in inline else encode(item, depth) for item in value]

    def _dict(self, value: Mapping[Any, Any], depth: int) -> Any:
        if all(type(key) is str for key in value) and TAG not in value:
            encode, inline = self.value, self.inline
            return {key: item if type(item) in inline else encode(item, depth) for key, item in value.items()}
        return {TAG: "dict", "v": [[self.value(key, depth), self.value(item, depth)] for key, item in value.items()]}

    def _members(self, value: Iterable[Any], depth: int) -> list[Any]:
        """A set's members in a stable order (a set of strings iterates in another order in each process): sorted
        by how each is written on its own, then written in that order, so references number alike."""
        items = list(value)
        if all(type(item) is int for item in items) or all(type(item) is str for item in items):
            return sorted(items)  # (written as themselves: no reference to number)
        ranked = sorted(((json.dumps(_Encoder(self.codec).value(item, depth), sort_keys=True), n, item)
                         for n, item in enumerate(items)), key=lambda entry: entry[0])
        return [self.value(item, depth) for _, _, item in ranked]

    def _object(self, value: Any, depth: int) -> Any:
        kind = type(value)
        name = self.codec.name_of(kind)
        if isinstance(value, enum.Enum):
            return {TAG: "enum", "c": name, "v": value.name}
        base = next((b for b in kind.__mro__ if b in _BUILTINS), None)
        mutable = base in (None, dict, list, set)
        if mutable:
            ref = self._number(value)
            if ref is not None:
                return ref
        written: dict[str, Any] = {TAG: "object", "c": name}
        if base is not None:
            written["base"] = base.__name__
            if base is dict:
                written["b"] = [[self.value(k, depth), self.value(v, depth)] for k, v in dict.items(value)]
            elif base in (list, tuple, set, frozenset):
                if base in (list, tuple):
                    written["b"] = [self.value(item, depth) for item in base.__iter__(value)]
                else:
                    written["b"] = self._members(base.__iter__(value), depth)
            elif base is bytes:
                written["b"] = base64.b64encode(bytes(value)).decode("ascii")
            elif base is float:
                written["b"] = self.value(float(value), depth)
            else:  # str, int
                written["b"] = base(value)
        fields = _fields(value)
        if fields:
            written["v"] = {field: self.value(item, depth) for field, item in fields}
        return written


class _Decoder:
    def __init__(self, codec: Codec, table: list[str] | None = None) -> None:
        self.codec = codec
        self.numbered: list[Any] = []
        self.table = table or []

    def _keep(self, value: Any) -> Any:
        self.numbered.append(value)
        return value

    def value(self, data: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise CodecError(f"nested deeper than {MAX_DEPTH} levels")
        kind = type(data)
        if kind is str or kind is bool or kind is int or data is None:
            return data
        if kind is float:
            return data
        deeper = depth + 1
        if kind is list:
            made: list[Any] = self._keep([])
            decode = self.value
            made.extend(item if type(item) in _READ_AS_THEY_ARE else decode(item, deeper) for item in data)
            return made
        if kind is not dict:
            raise CodecError(f"not a value this codec wrote (a {kind.__name__})")
        tag = data.get(TAG)
        if tag is None:
            mapping: dict[str, Any] = self._keep({})
            decode = self.value
            for key, item in data.items():
                mapping[key] = item if type(item) in _READ_AS_THEY_ARE else decode(item, deeper)
            return mapping
        return self._tagged(tag, data, deeper)

    def _items(self, data: Any, depth: int) -> list[Any]:
        if type(data) is not list:
            raise CodecError("not a value this codec wrote (items that are not a list)")
        decode = self.value
        return [item if type(item) in _READ_AS_THEY_ARE else decode(item, depth) for item in data]

    def _pairs(self, data: Any, depth: int, into: dict[Any, Any]) -> dict[Any, Any]:
        if type(data) is not list:
            raise CodecError("not a value this codec wrote (pairs that are not a list)")
        for pair in data:
            if type(pair) is not list or len(pair) != 2:
                raise CodecError("not a value this codec wrote (a pair that is not two values)")
            dict.__setitem__(into, self.value(pair[0], depth), self.value(pair[1], depth))  # (a subclass's own
        return into  # __setitem__ is not called)

    def _tagged(self, tag: Any, data: dict[str, Any], depth: int) -> Any:
        item = data.get("v")
        if tag == "ref":
            if type(item) is not int or not 0 <= item < len(self.numbered):
                raise CodecError("a reference to nothing written before it")
            return self.numbered[item]
        if tag == "text":
            if type(item) is not int or not 0 <= item < len(self.table):
                raise CodecError("a text that is not in the table")
            return self.table[item]
        if tag == "float":
            if item not in ("nan", "inf", "-inf"):
                raise CodecError(f"not a float this codec wrote: {item!r}")
            return float(item)
        if tag == "dict":
            return self._pairs(item, depth, self._keep({}))
        if tag == "tuple":
            return tuple(self._items(item, depth))
        if tag == "set":
            made: set[Any] = self._keep(set())
            made.update(self._items(item, depth))
            return made
        if tag == "frozenset":
            return frozenset(self._items(item, depth))
        if tag == "bytes":
            return base64.b64decode(str(item), validate=True)
        if tag == "deque":
            maxlen = data.get("max")
            if maxlen is not None and (type(maxlen) is not int or maxlen < 0):
                raise CodecError("a deque's length must be a whole number")
            queue: deque[Any] = self._keep(deque(maxlen=maxlen))
            queue.extend(self._items(item, depth))
            return queue
        if tag == "date":
            return datetime.date.fromisoformat(str(item))
        if tag == "datetime":
            return datetime.datetime.fromisoformat(str(item))
        if tag == "random":
            if type(item) is not list or len(item) != 3 or type(item[1]) is not str \
                    or not (item[2] is None or type(item[2]) is float):
                raise CodecError("not a random generator's state")
            words = base64.b64decode(item[1], validate=True)
            if len(words) != 625 * 4:
                raise CodecError("not a random generator's state (625 words)")
            made_rng = self._keep(random.Random())
            made_rng.setstate((item[0], struct.unpack("<625I", words), item[2]))
            return made_rng
        if tag == "partial":
            function = self.codec.named(data.get("f"), function=True)
            arguments = self._items(data.get("a", []), depth)  # in the order they were written (references)
            keywords = self.value(data.get("k", {}), depth)
            if type(keywords) is not dict or not all(isinstance(key, str) for key in keywords):
                raise CodecError("a partial's keywords must be a mapping of names")
            return functools.partial(function, *arguments, **keywords)
        if tag == "enum":
            klass = self.codec.named(data.get("c"))
            if not issubclass(klass, enum.Enum) or not isinstance(item, str):
                raise CodecError(f"{data.get('c')} is not an enumeration")
            return klass[item]
        if tag == "object":
            return self._object(data, depth)
        raise CodecError(f"not a value this codec wrote (tag {tag!r})")

    def _object(self, data: dict[str, Any], depth: int) -> Any:
        klass = self.codec.named(data.get("c"))
        if issubclass(klass, enum.Enum):
            raise CodecError(f"{data.get('c')} is an enumeration")
        base_name = data.get("base")
        base = next((b for b in klass.__mro__ if b in _BUILTINS), None)
        if (base.__name__ if base is not None else None) != base_name:
            raise CodecError(f"{data.get('c')} is not a {base_name or 'plain class'}")
        held = data.get("b")
        made: Any
        if base is None:
            made = self._keep(object.__new__(klass))
        elif base is dict:
            made = self._keep(dict.__new__(klass))
            self._pairs(held, depth, made)
        elif base is list:
            made = self._keep(list.__new__(klass))
            list.extend(made, self._items(held, depth))
        elif base is set:
            made = self._keep(set.__new__(klass))
            set.update(made, self._items(held, depth))
        elif base in (tuple, frozenset):
            made = base.__new__(klass, self._items(held, depth))
        elif base is bytes:
            made = bytes.__new__(klass, base64.b64decode(str(held), validate=True))
        elif base is float:
            number = self.value(held, depth)
            if type(number) is not float:
                raise CodecError("a float subclass must hold a float")
            made = float.__new__(klass, number)
        else:  # str, int
            if type(held) is not base:
                raise CodecError(f"a {base.__name__} subclass must hold a {base.__name__}")
            made = base.__new__(klass, held)
        fields = data.get("v", {})
        if type(fields) is not dict:
            raise CodecError("an object's attributes must be a mapping")
        if dataclasses.is_dataclass(klass):  # a record is read whole, or not at all
            missing = {field.name for field in dataclasses.fields(klass)} - set(fields)
            if missing:
                raise CodecError(f"{data.get('c')} lacks {', '.join(sorted(missing))}")
        for name, item in fields.items():
            object.__setattr__(made, name, self.value(item, depth))
        return made

PLAIN = Codec()
"""The codec of plain data: containers, scalars, dates; no object of any class."""


def dumps(value: Any) -> str:
    """Plain data (no objects) as JSON text."""
    return PLAIN.dumps(value)


def loads(text: str | bytes) -> Any:
    return PLAIN.loads(text)


# --- engine states ---------------------------------------------------------------------------------------------

def _rulepress_state_types() -> dict[str, Any]:
    """rulepress's own types an engine's state may hold (the bundle carries these modules to the browser).  The
    base class's Move only where the base class is loaded: a state can hold one only then, and an engine written
    on the bare protocol carries no basegame to the browser (verify/closure.py)."""
    from rulepress import protocol

    found: dict[str, Any] = {"rulepress.protocol:Chance": protocol.Chance, "rulepress.protocol:Event": protocol.Event,
                             "rulepress.protocol:_Shuffled": protocol._Shuffled}
    basegame = sys.modules.get("rulepress.basegame")
    if basegame is not None:
        found["rulepress.basegame:Move"] = basegame.Move
    memory = sys.modules.get("rulepress.memory")  # what a state of an engine with an observer remembers
    if memory is not None:
        found["rulepress.memory:Memory"] = memory.Memory
        found["rulepress.memory:Setup"] = memory.Setup
    return found


def engine_package(game: Any) -> str:
    """The package an engine's game class is defined in (``rulepress_engines.lantern``): its classes are the codec's."""
    module = type(game).__module__
    top = sys.modules.get(module)
    package = getattr(top, "__package__", None) or module.rpartition(".")[0] or module
    # The engine's own package, not a subpackage of it: a state's classes live anywhere in the engine.
    engine = getattr(sys.modules.get(package), "__name__", package)
    while "." in engine:
        parent = engine.rpartition(".")[0]
        if not getattr(sys.modules.get(parent), "__file__", None):  # a namespace (rulepress_engines): stop below it
            break
        engine = parent
    return engine


def state_codec(game: Any) -> Codec:
    """The codec of ``game``'s states: the classes and functions of its engine's package, and rulepress's."""
    package = engine_package(game)
    return _STATE_CODECS.get(package) or _STATE_CODECS.setdefault(
        package, Codec(_rulepress_state_types(), package=package))


_STATE_CODECS: dict[str, Codec] = {}
