"""The deck cycle (SPEC §11): which deck the shoe holds, whether a round may be dealt from it, and its
loading, check and release, as pure steps over the deck's state (``steps``) and what they ask of the
world (``intents``), answered on the owner thread by the adapter (``cycle``); its states as data
(``states``), its journal payloads (``payloads``), and what it asks of the shoe or the emulator (``device``).
"""
