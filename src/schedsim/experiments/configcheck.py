"""A workflow config checked before it is planned, every mistake as one readable line.

:func:`load_config_file` reads one YAML file (a regular readable file, YAML that parses,
a mapping at the top); :func:`config_problem` checks a config against the schema
(``workflow/schemas/config.schema.yaml``): an unknown section or key is named with the
keys allowed there (JSON-schema validation alone would print the whole schema), any
other schema error with its key path, the value and what is allowed. The workflow
(``workflow/rules/common.smk``) and ``python -m schedsim.experiments ... --config`` use
the same checks, then the plan's (:func:`schedsim.experiments.plan.build_plan`).
"""

from __future__ import annotations

import pkgutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedsim.errors import InputError

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / \
    "config.schema.yaml"
SECTIONS = ("seeds", "traces", "plugins")  # the top-level keys that are not families
# module suffixes of a family's parts (families/<name>_measure.py, ...), not families
FAMILY_PARTS = ("_measure", "_claims", "_figures")


def load_config_file(path: str | Path) -> dict[str, Any]:
    """The mapping in a YAML config file; an InputError naming the file (and the line and
    column of a syntax error) for anything else."""
    import yaml

    from schedsim.inputs import check_input

    try:
        check_input(path)
    except InputError as err:
        raise InputError(f"config {err}") from None
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except UnicodeDecodeError:
        raise InputError(f"config {path}: not UTF-8 text") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark is not None else str(path)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise InputError(f"config {where}: YAML syntax error: {problem}") from None
    if data is None:
        raise InputError(f"config {path}: the file is empty; a config is a mapping of "
                         "sections (seeds, traces and one per paper family)")
    if not isinstance(data, dict):
        raise InputError(f"config {path}: the top level is {_kind(data)}, not a mapping of "
                         "sections (seeds, traces and one per paper family)")
    return data


def load_schema() -> dict[str, Any]:
    import yaml

    if not SCHEMA_PATH.is_file():
        raise InputError(f"the config schema {SCHEMA_PATH} is missing: run schedsim's "
                         "workflow commands from a checkout of the repository")
    with open(SCHEMA_PATH, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@dataclass(frozen=True)
class Problem:
    """A config problem: the keys leading to it and one line (key path: what is wrong;
    what is allowed)."""

    keys: tuple[str | int, ...]
    text: str

    def __str__(self) -> str:
        return self.text


def config_problem(config: Mapping[str, Any], schema: Mapping[str, Any]) -> Problem | None:
    """The first problem of ``config``, or None."""
    section = unknown_section(config)
    if section is not None:
        return section
    return value_problem(config, schema)


def known_families() -> list[str]:
    """The families of the package (``schedsim.experiments.families.<name>``; a module
    ``<name>_measure``, ``<name>_claims`` or ``<name>_figures`` there is a part of family
    ``<name>``, not a family)."""
    from schedsim.experiments import families

    names = {m.name for m in pkgutil.iter_modules(families.__path__)}
    return sorted(name for name in names
                  if not any(name.endswith(part) and name.removesuffix(part) in names
                             for part in FAMILY_PARTS))


def unknown_section(config: Mapping[str, Any]) -> Problem | None:
    """A top-level key that is neither ``seeds``/``traces`` nor a family (of the package,
    or a section naming its ``module``)."""
    known = known_families()
    for key, value in config.items():
        own_module = isinstance(value, Mapping) and value.get("module")
        if key not in SECTIONS and key not in known and not own_module:
            return Problem((key,), f"unknown section {key!r}; allowed: "
                           f"{', '.join([*SECTIONS, *known])} (a family kept outside the "
                           "package names its module with `module:`)")
    return None


def first_unknown_key(config: Any, schema: Mapping[str, Any]) -> str | None:
    """``"unknown key 'k' in a.b; allowed: ..."`` for the first unknown key, else None."""
    found = _walk(config, schema, schema, (), "")
    return None if found is None else found.text


def value_problem(value: Any, schema: Mapping[str, Any], where: str = "") -> Problem | None:
    """The first problem of ``value`` (at the key path ``where`` of a config) under
    ``schema``: an unknown key named with the keys allowed there, else the most relevant
    schema error."""
    return _walk(value, schema, schema, (), where) or schema_problem(value, schema, where)


def schema_problem(config: Any, schema: Mapping[str, Any], where: str = "") -> Problem | None:
    """The most relevant JSON-schema error of ``config`` in one line, or None."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import best_match

    error = best_match(Draft202012Validator(schema).iter_errors(config))
    if error is None:
        return None
    keys = tuple(error.absolute_path)
    return Problem(keys, f"{key_path(keys, where) or 'the top level'}: {_describe(error)}")


def key_path(parts: Iterable[Any], where: str = "") -> str:
    """``a.b[0].c`` for the parts ``a, b, 0, c`` (after ``where``)."""
    out = where
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


_TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a text (string)",
               "boolean": "true or false", "object": "a mapping", "array": "a list",
               "null": "null"}


def _describe(error: Any) -> str:
    """What a JSON-schema error says, in words, with what is allowed."""
    kind, value, instance = error.validator, error.validator_value, error.instance
    shown = _short(instance)
    if kind == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        return f"{shown} is not {' or '.join(_TYPE_WORDS.get(w, w) for w in wanted)}"
    bounds = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "above",
              "exclusiveMaximum": "below"}
    if kind in bounds:
        return f"{shown} is out of range; allowed: {bounds[kind]} {value}"
    if kind == "enum":
        return f"{shown} is not allowed; allowed: {', '.join(map(str, value))}"
    if kind == "required":
        missing = [key for key in value if isinstance(instance, Mapping) and key not in instance]
        return f"missing key {', '.join(map(repr, missing))} (required: {', '.join(value)})"
    if kind == "uniqueItems":
        repeated = sorted({repr(v) for i, v in enumerate(instance) if v in instance[:i]})
        return f"{shown} repeats {', '.join(repeated)}; give each value once"
    if kind == "minItems":
        return f"{shown} has too few values; allowed: at least {value}"
    if kind == "pattern":
        return f"{shown} does not have the allowed form (pattern {value})"
    if kind == "propertyNames":
        return f"a key does not have the allowed form: {error.message}"
    if kind == "oneOf" and all(set(alt) == {"required"} for alt in value):
        keys = [key for alt in value for key in alt["required"]]
        return f"give exactly one of {', '.join(keys)}"
    if kind in ("anyOf", "oneOf"):
        return f"{shown} is not {' or '.join(_allowed(alt) for alt in value)}"
    return _clipped(error.message, 160)


def _allowed(schema: Mapping[str, Any]) -> str:
    """What a (simple) JSON schema allows, in words: ``a number in [0, 1]``."""
    if "$ref" in schema:
        return "a mapping"
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    kinds = schema.get("type", "any value")
    words = " or ".join(_TYPE_WORDS.get(k, k) for k in ([kinds] if isinstance(kinds, str)
                                                          else kinds))
    if "items" in schema:
        return f"a list (each {_allowed(schema['items'])})"
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None:
        return f"{words} in [{low}, {high}]"
    if low is not None:
        return f"{words} {'>' if 'exclusiveMinimum' in schema else '>='} {low}"
    return words


def _short(value: Any) -> str:
    """A value as the config would show it, clipped to 60 characters."""
    return _clipped(repr(value), 60)


def _clipped(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _kind(value: Any) -> str:
    return {list: "a list", str: "a text", int: "a number", float: "a number",
            bool: "true or false"}.get(type(value), type(value).__name__)


def where_defined(keys: Sequence[str | int], files: Sequence[str | Path]) -> list[str]:
    """The files (of the merged ``files``, later ones overriding) that set the key path
    ``keys``: the last that does, or all when none does (the key is the merge's)."""
    import yaml

    found = []
    for path in files:
        try:
            node: Any = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        for key in keys:
            if isinstance(node, Mapping):
                node = node.get(key)
            elif isinstance(node, list) and isinstance(key, int) and key < len(node):
                node = node[key]
            else:
                node = None
        if node is not None:
            found.append(str(path))
    return found[-1:] or [str(p) for p in files]


def _resolve(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        path = node["$ref"].removeprefix("#/").split("/")
        target: Any = root
        for part in path:
            target = target[part]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    for alternative in node.get("anyOf", ()):
        resolved = _resolve(alternative, root)
        if "properties" in resolved or "additionalProperties" in resolved:
            return resolved
    return node


def _walk(value: Any, node: Mapping[str, Any], root: Mapping[str, Any],
          keys: tuple[str | int, ...], where: str) -> Problem | None:
    node = _resolve(node, root)
    if isinstance(value, list) and isinstance(node.get("items"), Mapping):
        for index, item in enumerate(value):
            found = _walk(item, node["items"], root, (*keys, index), where)
            if found:
                return found
        return None
    if not isinstance(value, Mapping):
        return None
    known = node.get("properties", {})
    extra = node.get("additionalProperties", True)
    section = key_path(keys, where) or "the top level"
    for key, item in value.items():
        inside = (*keys, key)
        if key in known:
            found = _walk(item, known[key], root, inside, where)
        elif extra is False:
            return Problem(inside, f"unknown key {key!r} in {section}; allowed: "
                           f"{', '.join(known)}")
        elif isinstance(extra, Mapping):
            wanted = _resolve(extra, root)
            if wanted.get("type") == "object" and not isinstance(item, Mapping):
                return Problem(inside, f"key {key!r} in {section} is not a known key and not "
                               f"a section (a mapping); known keys: {', '.join(known)}")
            found = _walk(item, extra, root, inside, where)
        else:
            found = None
        if found:
            return found
    return None
