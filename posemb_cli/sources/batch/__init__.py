"""Token-id batches: drawn from a seed, or read from a JSON or .npy input sized before it is read."""
