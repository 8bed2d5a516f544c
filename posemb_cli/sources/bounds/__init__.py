"""Bounds on what an input may make posemb read or allocate, and JSON parsed within them."""
