"""The ``.safetensors`` format: its header read before any byte is mapped, one tensor as a view of the map."""
