"""Program and firmware verification in ``shoed`` (GLI-11 §4.3, field verification of a gaming device's
program): every byte the interpreter can load and the shoe's firmware checked against signed manifests
(``integrity``), and its journal payloads (``payloads``). Its configuration is ``config.verify``.
"""
