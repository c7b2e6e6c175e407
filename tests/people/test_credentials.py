"""The dummy PIN hash behind ``burn_time``: it was computed at import, ~0.2 s of every start."""

from __future__ import annotations

import subprocess
import sys

from shoe.people import credentials as cr


def test_the_dummy_hash_has_the_current_parameters_and_verifies() -> None:
    scheme, n, r, p, _salt, _hash = cr._DUMMY.split("$")
    assert (scheme, int(n), int(r), int(p)) == ("scrypt", cr.SCRYPT_N, cr.SCRYPT_R, cr.SCRYPT_P)
    assert cr.verify_pin("0000", cr._DUMMY)
    assert not cr.verify_pin("0001", cr._DUMMY)


def test_importing_the_credentials_runs_no_scrypt() -> None:
    code = (
        "import hashlib\n"
        "calls = []\n"
        "real = hashlib.scrypt\n"
        "hashlib.scrypt = lambda *a, **k: calls.append(1) or real(*a, **k)\n"
        "import shoe.people.credentials\n"
        "print(len(calls))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "0", "importing shoe.people.credentials hashed a PIN"
