"""transformers as the runtime: the only modules of posemb that import transformers or accelerate."""
