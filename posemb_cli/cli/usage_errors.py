"""Click's usage errors as one line that echoes what was typed: "--dim: 'abc' is not a valid integer", worded by
the option data's own ``refusal`` (the API's line for the same value)."""

from __future__ import annotations

from collections.abc import Sequence

from posemb_cli.request.values import refusal


def given_value(opts: Sequence[str], argv: Sequence[str]) -> str | None:
    """The value typed after the last of ``opts`` in ``argv`` (``--dim abc`` or ``--dim=abc``), or None."""
    found = None
    for index, word in enumerate(argv):
        for opt in opts:
            if word == opt and index + 1 < len(argv):
                found = argv[index + 1]
            elif opt.startswith("--") and word.startswith(opt + "="):
                found = word[len(opt) + 1:]
    return found


def bad_parameter_line(exc: Exception, argv: Sequence[str]) -> str | None:
    """One line for a Click ``BadParameter`` raised for an option, naming the flag and the value; else None."""
    param = getattr(exc, "param", None)
    opts = list(getattr(param, "opts", None) or ())
    if param is None or not opts or getattr(param, "param_type_name", "") != "option":
        return None
    flag = max(opts, key=len)  # the long name
    value = given_value(opts, argv)
    if value is None:
        return None
    return str(refusal(flag, value, str(getattr(exc, "message", "") or "")))
