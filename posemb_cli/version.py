"""The version of posemb, one place: the package, the CLI's --version and SARIF logs read it."""

__version__ = "0.1.0"
