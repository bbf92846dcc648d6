"""The corpus generator behind Corpus/generate.py (its docstring says how a file is made), and
what the scripts and tests around the corpus share: the built binaries (built), the folders beside
the checkout (shared) and scanned PDFs made from the corpus's images (pdfs)."""
