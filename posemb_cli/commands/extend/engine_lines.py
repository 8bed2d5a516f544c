"""The engines' entries in words, for the terminal: each engine, exact or not, what to run, and what differs."""

from __future__ import annotations

import json

__all__ = ["describe"]


def _context_line(name: str, entry: dict) -> str | None:
    need = entry.get("context_length")
    if not need or not need.get("command"):
        return None
    stated = "not stated" if need["file"] is None else f"{need['file']:,}"
    who = "llama-server caps a slot at it" if name == "llama_cpp" else "Ollama caps num_ctx at it"
    return (f"context_length: {' '.join(need['command'])} (the GGUF's {need['key']} is {stated}, short of "
            f"{need['needed']:,}; {who}; gguf-set-metadata edits the file in place)")


def _op_text(op: dict) -> str:
    if op["op"] == "remove":
        return f"remove {op['key']}"
    return f"set {op['key']} = {json.dumps(op['value'])}"


def describe(engines: dict) -> list[str]:
    """The engines as terminal lines: each engine, exact or not, then what to run or edit and what differs."""
    out = []
    for name, entry in engines.items():
        status = "exact" if entry["exact"] else "not exact"
        if name == "transformers" and entry.get("ops") is not None:
            what = "; ".join(_op_text(op) for op in entry["ops"]) or "the published config.json as it is"
            out.append(f"transformers ({status}): config.json edit: {what}")
            out += [f"  note: {note}" for note in entry.get("notes", [])]
        elif entry.get("args"):
            env = " ".join(f"{key}={value}" for key, value in entry.get("env", {}).items())
            words = " ".join(word if " " not in word and '"' not in word else f"'{word}'" for word in entry["args"])
            out.append(f"{name} ({status}): {(env + ' ') if env else ''}{words}")
        elif entry.get("modelfile"):
            out.append(f"{name} ({status}): Modelfile: {'; '.join(entry['modelfile'])}")
        else:
            out.append(f"{name} ({status})")
        if entry.get("args") or entry.get("modelfile"):
            line = _context_line(name, entry)
            out += [f"  {line}"] if line else []
        if entry.get("slots_note"):
            out.append(f"  slots: {entry['slots_note']}")
        if entry.get("env_note"):
            out.append(f"  env: {entry['env_note']}")
        if entry.get("differs"):
            out.append(f"  differs: {entry['differs']}")
    return out
