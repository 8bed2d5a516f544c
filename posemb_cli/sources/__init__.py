"""sources layer: files to tensors and settings, read within bounds; one subpackage per format or concept."""
