"""The corpus generator behind Corpus/generate.py (its docstring says how a file is made)."""
