"""TensorFlow 1.x's `tf.contrib.training.HParams`, which TensorFlow 2 has no twin of.

Estimator programs kept their hyperparameters in one (`hparams = tf.contrib.training.HParams(**vars(args))`, then
`hparams.train_steps`, `hparams.parse(FLAGS.hparams)`, `hparams.values()` given as an Estimator's `params`), and a
migrated program must read them as TF 1.15 did: the same `name=value` override syntax (lists in brackets, `arr[1]=3`
parsed to a dict, `true`/`1` for booleans, the same errors), the same type checks when a value is overridden (no float
into an int, no number into a string or a bool), the same `str` (which `parse` reads back) and `repr`. Not carried
over: the HParamDef protocol buffer (`hparam_def=`, `to_proto`, `from_proto`), gone with tf.contrib: one error.
"""

from __future__ import annotations

import json
import numbers
import re

# One `name[index] = value` or `name = [v1, v2]` clause of a parse() string, then a comma or the end
_CLAUSE = re.compile(
    r"""
    (?P<name>[a-zA-Z][\w.]*)
    (\[\s*(?P<index>\d+)\s*\])?
    \s*=\s*
    ((?P<val>[^,\[]*) | \[(?P<vals>[^\]]*)\])
    ($|,\s*)""",
    re.VERBOSE,
)


def _cannot_parse(name: str, kind: type, value: str, values: str):
    raise ValueError(f"Could not parse hparam '{name}' of type '{kind.__name__}' with value '{value}' in {values}")


def _assigned_twice(name: str, values: str):
    raise ValueError(f"Multiple assignments to variable '{name}' in {values}")


def _parser(name: str, kind: type, values: str):
    """How one value of `kind` is read: bools from true/false (or True/False, or an integer), others by the type."""
    if kind is not bool:
        return kind

    def parse_bool(value: str) -> bool:
        if value in ("true", "True"):
            return True
        if value in ("false", "False"):
            return False
        try:
            return bool(int(value))
        except ValueError:
            _cannot_parse(name, kind, value, values)

    return parse_bool


def parse_values(values: str, type_map: dict, ignore_unknown: bool = False) -> dict:
    """`name=value` clauses, comma-separated, read by the types in `type_map`: name -> a value, a list (`x=[1,2]`),
    or {index: value} for `x[1]=2`. A name assigned twice, a list given to an index, a name `type_map` lacks (unless
    `ignore_unknown`) or a value its type cannot read is a ValueError, as TF 1.x's parse_values."""
    results: dict = {}
    position = 0
    while position < len(values):
        match = _CLAUSE.match(values, position)
        if not match:
            raise ValueError(f"Malformed hyperparameter value: {values[position:]}")
        position = match.end()
        name, index, value, listed = match.group("name", "index", "val", "vals")
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        kind = type_map[name]
        parse = _parser(name, kind, values)
        if value is not None:
            try:
                parsed = parse(value)
            except ValueError:
                _cannot_parse(name, kind, value, values)
            if not index:
                if name in results:
                    _assigned_twice(name, values)
                results[name] = parsed
                continue
            if name in results and not isinstance(results[name], dict):
                _assigned_twice(name, values)
            by_index = results.setdefault(name, {})
            if int(index) in by_index:
                _assigned_twice(f"{name}[{int(index)}]", values)
            by_index[int(index)] = parsed
        elif listed is not None:
            if index is not None:
                raise ValueError("Assignment of a list to a list index.")
            if name in results:
                _assigned_twice(name, values)
            try:
                results[name] = [parse(element) for element in re.split("[ ,]", listed) if element]
            except ValueError:
                _cannot_parse(name, kind, listed, values)
        else:
            _cannot_parse(name, kind, "", values)
    return results


def _cast(name: str, kind: type, value):
    """`value` as a hyperparameter of `kind` (TF 1.x's checks: no number or bool into a string, no bool from or into
    another type, no float into an integer, nothing but numbers into a number)."""
    if type(value) is kind or issubclass(kind, type(None)):
        return value
    wrong = ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    if issubclass(kind, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise wrong
    if issubclass(kind, bool) != isinstance(value, bool):
        raise wrong
    if issubclass(kind, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise wrong
    if issubclass(kind, numbers.Number) and not isinstance(value, numbers.Number):
        raise wrong
    return kind(value)


_NO_PROTO = ("HParams as protocol buffers (HParamDef) went with tf.contrib and are not migrated: build the HParams from "
             "keyword arguments, and save them with to_json()")


class HParams:
    """Hyperparameters as attributes, each typed by its first value (a list: by its first element)."""

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types: dict[str, tuple[type, bool]] = {}
        self._model_structure = model_structure
        if hparam_def:
            raise ValueError(_NO_PROTO)
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value) -> None:
        """A new hyperparameter; a name the object already has (a method, a hyperparameter) is a ValueError."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value) -> None:
        """A new value for an existing hyperparameter (KeyError if there is none), cast to its type."""
        kind, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, element) for element in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name: str) -> None:
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides from a `name=value,...` string (see parse_values)."""
        type_map = {name: kind for name, (kind, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, type_map))

    def override_from_dict(self, values_dict: dict) -> HParams:
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_from_map(self, values_map: dict) -> HParams:
        """Deprecated in TF 1.x for override_from_dict."""
        return self.override_from_dict(values_map)

    def set_model_structure(self, model_structure) -> None:
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys: bool = False) -> str:
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> HParams:
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict:
        """The hyperparameters as a dict, in the order they were added."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key: str, default=None):
        """The value of `key`, else `default`; a default of another type than the hyperparameter's is a ValueError."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            kind, is_list = self._hparam_types[key]
            described = f"list<{kind}>" if is_list else str(kind)
            incompatible = f"Hparam '{key}' of type '{described}' is incompatible with default={default}"
            if is_list != isinstance(default, list):
                raise ValueError(incompatible)
            try:
                for value in default if is_list else [default]:
                    _cast(key, kind, value)
            except ValueError as error:
                raise ValueError(f"{incompatible}. {error}") from None
        return getattr(self, key)

    def __contains__(self, key) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return ",".join(f"{name}={value}" for name, value in self.values().items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self.values().items())})"

    def to_proto(self, export_scope=None):
        raise ValueError(_NO_PROTO)

    @staticmethod
    def from_proto(hparam_def, import_scope=None):
        raise ValueError(_NO_PROTO)
