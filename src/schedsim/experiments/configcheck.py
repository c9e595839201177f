"""A short message for a config key the schema does not know.

JSON-schema validation reports an unknown key by printing the whole schema; this
check finds the first such key and names it, its section and the allowed keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def first_unknown_key(config: Any, schema: Mapping[str, Any]) -> str | None:
    """``"unknown key 'k' in a.b; allowed: ..."`` for the first unknown key, else None."""
    return _walk(config, schema, schema, "")


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


def _walk(value: Any, node: Mapping[str, Any], root: Mapping[str, Any], where: str) -> str | None:
    node = _resolve(node, root)
    if isinstance(value, list) and isinstance(node.get("items"), Mapping):
        for index, item in enumerate(value):
            found = _walk(item, node["items"], root, f"{where}[{index}]")
            if found:
                return found
        return None
    if not isinstance(value, Mapping):
        return None
    known = node.get("properties", {})
    extra = node.get("additionalProperties", True)
    for key, item in value.items():
        inside = f"{where}.{key}" if where else str(key)
        if key in known:
            found = _walk(item, known[key], root, inside)
        elif extra is False:
            section = where or "the top level"
            return f"unknown key {key!r} in {section}; allowed: {', '.join(known)}"
        elif isinstance(extra, Mapping):
            wanted = _resolve(extra, root)
            if wanted.get("type") == "object" and not isinstance(item, Mapping):
                section = where or "the top level"
                return (f"key {key!r} in {section} is not a known key and not a section (a "
                        f"mapping); known keys: {', '.join(known)}")
            found = _walk(item, extra, root, inside)
        else:
            found = None
        if found:
            return found
    return None
