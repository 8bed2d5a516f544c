"""From what the user names to the model's reading: a path, a model directory, and the one entry that reads it."""
