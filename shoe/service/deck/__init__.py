"""The deck cycle (SPEC §11): which deck the shoe holds, whether a round may be dealt from it, and its
loading, check and release (``cycle``), its states as data (``states``), its journal payloads
(``payloads``), and what it asks of the shoe or the emulator (``device``).
"""
