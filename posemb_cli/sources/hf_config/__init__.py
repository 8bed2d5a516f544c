"""The Hugging Face ``config.json`` format, read as transformers 5 reads it: RoPE blocks and per-family layer rules."""
