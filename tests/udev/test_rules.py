"""The shipped udev rules: the ids equal the drivers', safe permissions, no programs run, early exits, and
``udevadm verify`` where this machine's udev has it (systemd 253 and later)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from drivers.usb_ids import PRODUCT_ID, VENDOR_ID
from shoe.doctor.model import GROUP
from shoe.udev_rules import Rule, RulesSyntaxError, parse_line, parse_rules, shipped_rules_path, usb_id_hex

ROOT = Path(__file__).resolve().parents[2]
PATH = shipped_rules_path()
TEXT = PATH.read_text()
RULES = parse_rules(TEXT)
EXIT_RULES, BODY, END = RULES[:2], RULES[2:-1], RULES[-1]
ID_KEYS = {"vendor": ("ATTR{idVendor}", "ATTRS{idVendor}"), "product": ("ATTR{idProduct}", "ATTRS{idProduct}")}


def id_matches(rule: Rule, which: str) -> list[str]:
    return [v for key in ID_KEYS[which] for v in rule.values(key, frozenset({"=="}))]


def body(subsystem: str) -> list[Rule]:
    return [r for r in BODY if r.has("SUBSYSTEM", "==", subsystem)]


def test_the_file_parses_into_exits_rules_and_a_label() -> None:
    assert len(RULES) >= 5
    assert all(r.triples for r in RULES)


def test_ids_are_the_drivers_ids_in_lowercase_hex() -> None:
    vendors = {v for r in RULES for v in id_matches(r, "vendor")}
    products = {v for r in RULES for v in id_matches(r, "product")}
    assert vendors == {usb_id_hex(VENDOR_ID)}
    assert products == {usb_id_hex(PRODUCT_ID)}
    assert all(re.fullmatch(r"[0-9a-f]{4}", v) for v in vendors | products)


def test_every_rule_that_acts_matches_our_ids_and_a_subsystem_never_a_kernel_name() -> None:
    for rule in BODY:
        assert rule.assigns, rule
        assert id_matches(rule, "vendor") and id_matches(rule, "product"), rule
        assert rule.values("SUBSYSTEM", frozenset({"=="})), rule
        assert not any(k.startswith("KERNEL") for k in rule.keys), rule
    assert not re.search(r"tty(USB|ACM)\d", "\n".join(str(r.triples) for r in RULES))


def test_mode_is_0660_everywhere_with_the_dedicated_group() -> None:
    modes = [v for r in RULES for v in r.values("MODE")]
    groups = [v for r in RULES for v in r.values("GROUP")]
    assert modes and set(modes) == {"0660"}
    assert groups and set(groups) == {GROUP} == {"cardshoe"}
    assert "0666" not in TEXT
    for rule in RULES:
        assert bool(rule.values("MODE")) == bool(rule.values("GROUP")), rule


def test_no_program_is_ever_run() -> None:
    keys = {k.split("{")[0] for r in RULES for k in r.keys}
    assert not keys & {"RUN", "PROGRAM", "IMPORT"}
    assert "RUN" not in re.sub(r"#.*", "", TEXT)


def _skips(rule: Rule, key: str, value: str) -> bool:
    """Whether an early-exit rule's one match (udev's ``a|b`` alternatives, no globs) holds for ``value``."""
    ((_key, op, pattern),) = [t for t in rule.triples if t[0] == key]
    return (value in pattern.split("|")) == (op == "==")


@pytest.mark.parametrize("action", ["add", "change", "bind", "move", "unbind", "online", "offline"])
def test_every_action_but_remove_reaches_the_rules(action: str) -> None:
    # A "move" (a renamed node) that skipped the rules would lose the links and ID_MM_DEVICE_IGNORE:
    # udev keeps only what the rules set at the latest event.
    assert not _skips(EXIT_RULES[0], "ACTION", action)


def test_remove_skips_the_rules() -> None:
    assert _skips(EXIT_RULES[0], "ACTION", "remove")


def test_early_exits_on_action_and_subsystem_to_a_label_at_the_end() -> None:
    action, subsystem = EXIT_RULES
    assert action.keys == ["ACTION", "GOTO"] and action.triples[0] == ("ACTION", "==", "remove")
    assert subsystem.keys == ["SUBSYSTEM", "GOTO"] and subsystem.triples[0][1] == "!="
    label = END.values("LABEL")
    assert END.keys == ["LABEL"] and label == action.values("GOTO") == subsystem.values("GOTO")
    allowed = set(subsystem.values("SUBSYSTEM")[0].split("|"))
    used = {v for r in BODY for v in r.values("SUBSYSTEM", frozenset({"=="}))}
    assert used == allowed == {"tty", "usb", "usb-serial"}
    assert not any(r.values("GOTO") or r.values("LABEL") for r in BODY)


def test_serial_interface_group_links_and_modem_manager_ignore() -> None:
    tty = body("tty")
    assert any(r.has("SYMLINK", "+=", "cardshoe") for r in tty)
    per_serial = [v for r in tty for v in r.values("SYMLINK") if "serial}" in v]
    assert per_serial == ["cardshoe-%s{serial}"]
    guarded = next(r for r in tty if "cardshoe-%s{serial}" in r.values("SYMLINK"))
    assert guarded.has("ATTRS{serial}", "==", "?*")  # no bare "cardshoe-" link for a shoe without a serial
    assert any(r.has("ENV{ID_MM_DEVICE_IGNORE}", "=", "1") and r.has("MODE", "=", "0660") for r in tty)


def test_ftdi_latency_timer_is_set_low_by_an_attribute_write() -> None:
    (rule,) = body("usb-serial")
    assert rule.has("DRIVER", "==", "ftdi_sio")
    assert rule.has("ATTR{latency_timer}", "=", "1")


def test_usb_vendor_interface_gets_the_same_group_and_mode() -> None:
    (rule,) = body("usb")
    assert rule.has("ENV{DEVTYPE}", "==", "usb_device")
    assert rule.has("GROUP", "=", "cardshoe") and rule.has("MODE", "=", "0660")


def test_readme_documents_the_placeholder_ids_and_the_install_commands() -> None:
    readme = (ROOT / "udev" / "README.md").read_text()
    for needle in (
        f"{usb_id_hex(VENDOR_ID)}:{usb_id_hex(PRODUCT_ID)}",
        "drivers/usb_ids.py",
        "udevadm control --reload && sudo udevadm trigger",
        "groupadd --system cardshoe",
        "usermod -aG cardshoe shoe",
        "placeholder",
    ):
        assert needle in readme, needle


def test_the_checkout_link_is_the_shipped_file() -> None:
    assert (ROOT / "udev" / "60-card-shoe.rules").resolve() == PATH
    assert PATH.parent.name == "system" and PATH.parent.parent.name == "shoe"  # package data, in every wheel


# The reader itself.


def test_parser_joins_continuation_lines_and_skips_comments() -> None:
    rules = parse_rules('# c\n\nSUBSYSTEM=="tty", \\\n  MODE="0660"\nLABEL="x"\n')
    assert [(r.line, r.triples) for r in rules] == [
        (3, (("SUBSYSTEM", "==", "tty"), ("MODE", "=", "0660"))),
        (5, (("LABEL", "=", "x"),)),
    ]


def test_parser_reads_every_operator_and_escaped_quotes() -> None:
    rule = parse_line(r'A=="1", B!="2", C="3", D+="4", E-="5", F:="6", ENV{X}="a \"q\" b"')
    assert [op for _, op, _ in rule.triples] == ["==", "!=", "=", "+=", "-=", ":=", "="]
    assert rule.values("ENV{X}") == [r"a \"q\" b"]


@pytest.mark.parametrize(
    "line",
    ['SUBSYSTEM=="tty" MODE="0660"', 'SUBSYSTEM=="tty",', "SUBSYSTEM==tty", 'MODE="0660', 'MODE=="x", ,'],
)
def test_parser_refuses_malformed_lines(line: str) -> None:
    with pytest.raises(RulesSyntaxError):
        parse_rules(line)


def test_parser_refuses_a_file_ending_inside_a_continuation() -> None:
    with pytest.raises(RulesSyntaxError, match="line 1"):
        parse_rules('MODE="0660", \\\n')


# udevadm verify (systemd >= 253).


def _udevadm_verify() -> str | None:
    udevadm = shutil.which("udevadm")
    if udevadm is None:
        return None
    probe = subprocess.run([udevadm, "verify", "--help"], capture_output=True, text=True, timeout=30, check=False)
    return udevadm if probe.returncode == 0 else None


def test_udevadm_verify_accepts_the_rules() -> None:
    udevadm = _udevadm_verify()
    if udevadm is None:
        reason = "no udevadm" if shutil.which("udevadm") is None else "this udevadm has no verify (systemd < 253)"
        pytest.skip(f"udevadm verify not run: {reason}")
    # Names are not resolved: the cardshoe group need not exist on the machine running the tests.
    done = subprocess.run(
        [udevadm, "verify", "--resolve-names=never", str(PATH)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
