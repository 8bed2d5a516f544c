"""A checkpoint's tensors across formats: the position and token tables, T5's bias, each layer's query and key."""
