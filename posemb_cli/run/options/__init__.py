"""Each command's options as data: the option type and its checks (``option``, ``values``), the shared groups."""
