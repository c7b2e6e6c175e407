"""Hardware-in-the-loop tests: the same suite against the software shoe or a real one (README.md)."""
