"""Which keys of a real JSON document its schema does not describe (the schemas allow extra keys, so
validation alone cannot tell that a new key was left out of the contract)."""

from __future__ import annotations

from jsonschema import Draft202012Validator


def _resolve(node: dict, root: dict) -> dict:
    while isinstance(node, dict) and "$ref" in node:
        node = root["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _branches(node: dict, instance, root: dict) -> list[dict]:
    """The node itself and every subschema (allOf; the anyOf/oneOf branches it validates against)."""
    node = _resolve(node, root)
    found = [node]
    for sub in node.get("allOf", []):
        found += _branches(sub, instance, root)
    for key in ("anyOf", "oneOf"):
        for sub in node.get(key, []):
            if Draft202012Validator({**root, **_resolve(sub, root)}).is_valid(instance):
                found += _branches(sub, instance, root)
    return found


def undescribed_keys(instance, node: dict, root: dict | None = None, path: str = "$") -> list[str]:
    """The paths of object keys that no ``properties`` of the matching (sub)schema names."""
    root = node if root is None else root
    nodes = _branches(node, instance, root)
    missing: list[str] = []
    if isinstance(instance, dict):
        props: dict[str, list] = {}
        open_values = [n["additionalProperties"] for n in nodes if isinstance(n.get("additionalProperties"), dict)]
        for n in nodes:
            for key, sub in n.get("properties", {}).items():
                props.setdefault(key, []).append(sub)
        if not props and not open_values:
            return []  # a free-form object (no properties described)
        for key, value in instance.items():
            subs = props.get(key) or open_values
            if not subs:
                missing.append(f"{path}.{key}")
            for sub in subs:
                missing += undescribed_keys(value, sub, root, f"{path}.{key}")
    elif isinstance(instance, list):
        for n in nodes:
            if isinstance(n.get("items"), dict):
                for index, item in enumerate(instance):
                    missing += undescribed_keys(item, n["items"], root, f"{path}[{index}]")
    return sorted(set(missing))
