"""shoectl's parser must not import numpy: its threads would take the signals ``shoectl emulate`` waits for.

``shoectl emulate`` blocks SIGUSR1/SIGUSR2 in its main thread and takes them with ``sigwait``; a thread
started before that (numpy's BLAS pool starts at import) has them unblocked, so the kernel may hand the
signal to it and its default action ends the emulator (seen as a flaky test_emulate_signals in CI). The
math and report commands import their numpy half only when they run.
"""

from __future__ import annotations

import subprocess
import sys

from shoe.cli import math as math_cli
from shoe.cli import report as report_cli


def test_the_cli_and_shoed_start_without_numpy() -> None:
    code = "import sys, shoe.cli.main, shoe.shoed; print(sorted({'numpy', 'matplotlib'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_the_parser_constants_agree_with_the_math() -> None:
    from shoe.math import Ties
    from shoe.math.stud import DEFAULT_ROUNDS
    from shoe.report.summary import GROUPINGS

    assert (Ties.PREFER_BET.value, Ties.PREFER_FOLD.value) == math_cli.TIE_RULES
    assert set(math_cli.TIE_RULES) == {t.value for t in Ties}
    assert math_cli.DEFAULT_STUD_ROUNDS == DEFAULT_ROUNDS
    assert report_cli.GROUPINGS is GROUPINGS
