"""Each doctor check against a fake machine: ok, failed with the fix, or skipped with the reason."""

from __future__ import annotations

import os
from typing import Any

import pytest

from shoe.doctor import CHECKS, CheckResult, Context, Status, checks, run_checks, service_checks
from shoe.udev_rules import parse_rules, shipped_rules_path
from tests.doctor.conftest import Machine

SHIPPED = shipped_rules_path().read_text()
OURS = ("1209", "0001")


def assert_status(result: CheckResult, status: Status, *needles: str) -> None:
    assert result.status is status, result
    text = result.detail + " " + result.fix
    for needle in needles:
        assert needle in text, (needle, result)
    assert bool(result.fix) == (status is Status.FAILED), result


# udev rules


def test_rules_skipped_where_there_is_no_udev(machine: Machine) -> None:
    ctx = machine.context(rules_dir=machine.root / "no/udev")
    assert_status(checks.udev_rules_installed(ctx), Status.SKIPPED, "no udev")


def test_rules_not_installed_fail_with_the_install_command(machine: Machine) -> None:
    result = checks.udev_rules_installed(machine.context())
    assert_status(result, Status.FAILED, "not installed", "sudo install -m 644", "udevadm control --reload")
    assert "udevadm trigger" in result.fix and str(shipped_rules_path()) in result.fix


def test_rules_identical(machine: Machine) -> None:
    machine.install_rules()
    assert_status(checks.udev_rules_installed(machine.context()), Status.OK, "identical")


def test_rules_differing_only_in_comments_still_pass(machine: Machine) -> None:
    machine.install_rules("# edited by hand\n" + SHIPPED.replace(", ", ",  "))
    assert_status(checks.udev_rules_installed(machine.context()), Status.OK, "comments or spacing")


def test_rules_with_other_ids_fail_with_a_diff_summary(machine: Machine) -> None:
    machine.install_rules(SHIPPED.replace('"0001"', '"0002"'))
    first = next(r.line for r in parse_rules(SHIPPED) if r.has("ATTRS{idProduct}", "==", "0001"))
    result = checks.udev_rules_installed(machine.context())
    assert_status(
        result,
        Status.FAILED,
        "differs",
        f"first difference at line {first}",
        'missing ATTRS{idProduct}=="0001"',
        'not shipped ATTRS{idProduct}=="0002"',
    )


def test_rules_that_do_not_parse_fail(machine: Machine) -> None:
    machine.install_rules('SUBSYSTEM=="tty" MODE="0666"\n')
    assert_status(checks.udev_rules_installed(machine.context()), Status.FAILED, "does not parse")


def test_rules_skipped_when_the_installation_has_no_shipped_copy(machine: Machine) -> None:
    ctx = machine.context(shipped_rules=machine.root / "nowhere.rules")
    assert_status(checks.udev_rules_installed(ctx), Status.SKIPPED, "not in this installation")


# group


@pytest.mark.parametrize(
    ("overrides", "status", "needle"),
    [
        ({}, Status.OK, "is in group"),
        ({"user": "carol", "process_gids": frozenset()}, Status.FAILED, "sudo usermod -aG cardshoe carol"),
        ({"process_gids": frozenset()}, Status.FAILED, "log out and back in"),
        ({"user": "carol", "gid": os.getgid(), "process_gids": frozenset()}, Status.OK, "is in group"),
        ({"uid": 0, "user": "root"}, Status.OK, "running as root"),
    ],
)
def test_group_membership(machine: Machine, overrides: dict[str, Any], status: Status, needle: str) -> None:
    assert_status(checks.group_membership(machine.context(**overrides)), status, needle)


def test_missing_group_fails_with_groupadd(machine: Machine) -> None:
    machine.groups("root:x:0:\nshoe:x:999:\n")
    assert_status(checks.group_membership(machine.context()), Status.FAILED, "sudo groupadd --system cardshoe")


def test_group_skipped_without_a_group_database(machine: Machine) -> None:
    ctx = machine.context(group_file=machine.root / "no/group")
    assert_status(checks.group_membership(ctx), Status.SKIPPED, "no group database")


# device nodes


def test_devices_skipped_when_no_shoe_is_plugged_in(machine: Machine) -> None:
    assert_status(checks.device_permissions(machine.context()), Status.SKIPPED, "no shoe plugged in")


def test_devices_0660_group_cardshoe_pass(machine: Machine) -> None:
    machine.device("cardshoe", 0o660)
    machine.device("cardshoe-SN1", 0o660)
    assert_status(checks.device_permissions(machine.context()), Status.OK, "cardshoe-SN1", "0660 cardshoe")


def test_devices_world_writable_or_wrong_group_fail(machine: Machine) -> None:
    machine.device("cardshoe", 0o666)
    result = checks.device_permissions(machine.context())
    assert_status(result, Status.FAILED, "mode 0666", "udevadm trigger --action=change --attr-match=idVendor=1209")
    machine.groups("cardshoe:x:4242:alice\n")
    (machine.root / "dev/ttyACM").chmod(0o660)
    assert_status(checks.device_permissions(machine.context()), Status.FAILED, "not 0660 group cardshoe")


def test_dangling_link_fails(machine: Machine) -> None:
    (machine.root / "dev/cardshoe").symlink_to("ttyACM9")
    assert_status(checks.device_permissions(machine.context()), Status.FAILED, "No such file")


# ModemManager


def test_modem_manager_not_running(machine: Machine) -> None:
    machine.process(1, "systemd")
    assert_status(checks.modem_manager(machine.context()), Status.OK, "not running")


def test_modem_manager_running_without_the_ignore_rule_fails(machine: Machine) -> None:
    machine.process(412, "ModemManager")
    result = checks.modem_manager(machine.context())
    assert_status(result, Status.FAILED, "AT commands", "sudo install -m 644", "systemctl disable --now ModemManager")


def test_modem_manager_running_with_the_rules_installed_passes(machine: Machine) -> None:
    machine.process(412, "ModemManager")
    machine.install_rules()
    assert_status(checks.modem_manager(machine.context()), Status.OK, "ignore the shoe")


def test_modem_manager_skipped_without_proc(machine: Machine) -> None:
    ctx = machine.context(proc_root=machine.root / "no/proc")
    assert_status(checks.modem_manager(ctx), Status.SKIPPED, "cannot list processes")


# FTDI latency timer


def test_latency_skipped_without_usb_serial(machine: Machine) -> None:
    assert_status(checks.latency_timer(machine.context()), Status.SKIPPED, "no USB-serial devices")


def test_latency_default_16ms_fails_with_the_fix(machine: Machine) -> None:
    timer = machine.usb_serial("ttyUSB0", OURS, 16)
    machine.usb_serial("ttyUSB1", ("0403", "6001"), 16)  # someone else's adapter: not ours to judge
    result = checks.latency_timer(machine.context())
    assert_status(result, Status.FAILED, "ttyUSB0 holds partial packets 16 ms", f"echo 1 | sudo tee {timer}")
    assert "ttyUSB1" not in result.detail


def test_latency_1ms_passes(machine: Machine) -> None:
    machine.usb_serial("ttyUSB0", OURS, 1)
    assert_status(checks.latency_timer(machine.context()), Status.OK, "ttyUSB0 1 ms")


@pytest.mark.parametrize(("ids", "latency"), [(("0403", "6001"), 16), (OURS, None)])
def test_latency_skipped_for_other_adapters_and_cdc_acm(machine: Machine, ids: tuple[str, str], latency: Any) -> None:
    machine.usb_serial("ttyUSB0", ids, latency)
    assert_status(checks.latency_timer(machine.context()), Status.SKIPPED, "no FTDI adapter with id 1209:0001")


# journal


def test_journal_missing_is_skipped(machine: Machine) -> None:
    assert_status(service_checks.journal_permissions(machine.context()), Status.SKIPPED, "no journal")


def test_private_journal_passes(machine: Machine) -> None:
    machine.journal(0o600)
    machine.journal(0o600, "-wal")
    ctx = machine.context(uid=os.getuid())
    assert_status(service_checks.journal_permissions(ctx), Status.OK, "private")


def test_readable_journal_or_wal_fails_with_chmod(machine: Machine) -> None:
    machine.journal(0o600)
    wal = machine.journal(0o644, "-wal")
    result = service_checks.journal_permissions(machine.context(uid=os.getuid()))
    assert_status(result, Status.FAILED, "mode 0644", f"chmod 600 {wal}")


def test_journal_of_another_user_fails(machine: Machine) -> None:
    path = machine.journal(0o600)
    result = service_checks.journal_permissions(machine.context(uid=path.stat().st_uid + 1))
    assert_status(result, Status.FAILED, "belongs to uid", "sudo chown alice:")


# service


def test_service_not_running_fails_with_systemctl_start(machine: Machine) -> None:
    result = service_checks.service_reachable(machine.context())
    assert_status(result, Status.FAILED, "not running", "systemctl start shoed")


def test_service_answering_passes_even_with_a_proxy_set(
    machine: Machine, shoed: tuple[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.delenv("no_proxy", raising=False)
    url, _ = shoed
    assert_status(service_checks.service_reachable(machine.context(service_url=url + "/")), Status.OK, "(200)")


@pytest.mark.parametrize(("code", "status"), [(401, Status.OK), (403, Status.OK), (500, Status.FAILED)])
def test_service_http_errors(machine: Machine, shoed: tuple[str, Any], code: int, status: Status) -> None:
    url, handler = shoed
    handler.status = code
    assert_status(service_checks.service_reachable(machine.context(service_url=url)), status, str(code))


# the registry


def test_every_check_runs_once_in_order_and_names_are_unique(machine: Machine) -> None:
    results = run_checks(machine.context())
    names = [name for name, _ in CHECKS]
    assert [r.name for r in results] == names and len(set(names)) == len(names) == 9


def test_an_unexpected_os_error_is_that_checks_failure(machine: Machine) -> None:
    def broken(ctx: Context) -> CheckResult:
        raise PermissionError(13, "Permission denied", "/sys/x")

    (result,) = run_checks(machine.context(), [("broken", broken)])
    assert_status(result, Status.FAILED, "could not check", "Permission denied")
