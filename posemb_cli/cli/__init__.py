"""The command line: the Typer app, its options and its commands (parses and renders, computes nothing)."""

from posemb_cli.cli.app import app, main

__all__ = ["app", "main"]
