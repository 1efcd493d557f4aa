"""What crosses modules, read with Python's `ast` before the rewrite: which modules make one program (graph)
and what a program's modules say about its estimators (facts)."""
