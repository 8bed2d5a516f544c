"""The GGUF format (llama.cpp, Ollama): its header, its tensors, and llama.cpp's rules where a file is silent."""
