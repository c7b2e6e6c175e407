"""End-to-end tests: the real ``shoed`` process, the emulated shoe on a pseudo-terminal, HTTP only."""
