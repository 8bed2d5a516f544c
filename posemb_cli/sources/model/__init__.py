"""What a model is, once read: the reading and its per-layer records, the kind of position, each field as read."""
