"""One module per subcommand; ``cli.py`` joins them."""
