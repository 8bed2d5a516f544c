"""measures layer."""
