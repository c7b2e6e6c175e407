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


HEAVY = ("structlog", "asyncio", "importlib.metadata", "drivers.client", "serial", "shoe.service", "shoe.rules")


def _modules_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint('MODULES', ' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False)
    return set(out.stdout.splitlines()[-1].split()[1:])


def test_help_imports_no_command_module_and_no_heavy_library() -> None:
    """``shoectl --help`` and a usage error load neither a command's module nor structlog/asyncio."""
    for argv in (["--help"], ["bogus"]):
        code = f"from shoe.cli.main import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        loaded = _modules_after(code)
        assert "shoe.cli.main" in loaded
        commands = sorted(m for m in loaded if m.startswith("shoe.cli.") and m not in LIGHT)
        assert commands == [], f"{argv}: {commands}"
        assert not [m for m in HEAVY if m in loaded], f"{argv}: {[m for m in HEAVY if m in loaded]}"


LIGHT = {"shoe.cli.main", "shoe.cli.exit_codes", "shoe.cli.output"}


def test_a_command_imports_its_own_module_only() -> None:
    code = "from shoe.cli.main import main\ntry:\n    main(['status', '--help'])\nexcept SystemExit:\n    pass"
    loaded = {m for m in _modules_after(code) if m.startswith("shoe.cli.")}
    assert loaded - LIGHT == {"shoe.cli.shoe_commands", "shoe.cli.render"}


def test_the_command_table_agrees_with_the_modules() -> None:
    """Every row of COMMANDS is a command its module adds, with the same help line, and every command is a row."""
    import argparse

    from shoe.cli.main import COMMANDS, build_parser

    full = build_parser("*")
    action = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    assert helps == {name: help_line for name, (_, help_line) in COMMANDS.items()}
    for name, (module, _) in COMMANDS.items():
        alone = build_parser(name)
        sub = next(a for a in alone._actions if isinstance(a, argparse._SubParsersAction))
        assert sub.choices[name].add_help, f"{name} is not added by shoe.cli.{module}: a placeholder is left"
