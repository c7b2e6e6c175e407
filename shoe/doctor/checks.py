"""The host checks: udev rules installed, the ``cardshoe`` group, device nodes, ModemManager, FTDI latency.

Each is a function ``Context -> CheckResult`` registered with ``@check``; ``run_checks`` runs them in
the order of this file (the journal and service checks follow, from ``service_checks``).
"""

from __future__ import annotations

import grp
import os
import stat
from pathlib import Path

from shoe.doctor.model import CheckResult, Context, check, failed, passed, skipped
from shoe.udev_rules import Rule, RulesSyntaxError, parse_rules, usb_id_hex

RULES, GROUP, DEVICES, MODEM, LATENCY = "udev rules", "group", "device permissions", "ModemManager", "latency timer"
DEVICE_MODE = 0o660
MAX_LATENCY_MS = 1
SERVICE_USER = "shoe"  # the account udev/README.md suggests for shoed; named in fixes when root runs doctor


def _read(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def read_groups(path: Path) -> dict[str, tuple[int, frozenset[str]]]:
    """``/etc/group`` as ``{name: (gid, members)}``; malformed lines are ignored, as NSS does."""
    groups: dict[str, tuple[int, frozenset[str]]] = {}
    for line in path.read_text(errors="replace").splitlines():
        parts = line.split(":")
        if len(parts) == 4 and parts[2].isdigit():
            groups[parts[0]] = (int(parts[2]), frozenset(m for m in parts[3].split(",") if m))
    return groups


def _show(triples: set[tuple[str, str, str]]) -> str:
    return ", ".join(f'{k}{op}"{v}"' for k, op, v in sorted(triples)[:3]) or "nothing"


def diff_summary(shipped: list[Rule], installed: list[Rule]) -> str:
    """Which ``KEY op "value"`` the installed rules lack or add, and where the first changed rule is."""
    ours, theirs = {t for r in shipped for t in r.triples}, {t for r in installed for t in r.triples}
    changed = [b.line for a, b in zip(shipped, installed, strict=False) if a.triples != b.triples]
    where = f"line {changed[0]}" if changed else "the end"
    return (
        f"{len(shipped)} rules shipped, {len(installed)} installed, first difference at {where}; "
        f"missing {_show(ours - theirs)}; not shipped {_show(theirs - ours)}"
    )


@check(RULES)
def udev_rules_installed(ctx: Context) -> CheckResult:
    if not ctx.shipped_rules.is_file():
        return skipped(RULES, f"the shipped rules are not in this installation ({ctx.shipped_rules})")
    if not ctx.rules_dir.is_dir():
        return skipped(RULES, f"no udev on this machine ({ctx.rules_dir} does not exist)")
    if not ctx.installed_rules.is_file():
        return failed(RULES, f"{ctx.installed_rules} is not installed", ctx.install_fix)
    shipped, installed = ctx.shipped_rules.read_text(), ctx.installed_rules.read_text()
    if installed == shipped:
        return passed(RULES, f"{ctx.installed_rules} is identical to the shipped rules")
    try:
        theirs, ours = parse_rules(installed), parse_rules(shipped)
    except RulesSyntaxError as exc:
        return failed(RULES, f"{ctx.installed_rules} does not parse ({exc})", ctx.install_fix)
    if [r.triples for r in theirs] == [r.triples for r in ours]:
        return passed(RULES, f"{ctx.installed_rules} has the shipped rules (comments or spacing differ)")
    return failed(
        RULES,
        f"{ctx.installed_rules} differs from the shipped rules: {diff_summary(ours, theirs)}",
        ctx.install_fix,
    )


@check(GROUP)
def group_membership(ctx: Context) -> CheckResult:
    if not ctx.group_file.is_file():
        return skipped(GROUP, f"no group database at {ctx.group_file}")
    groups = read_groups(ctx.group_file)
    user = SERVICE_USER if ctx.uid == 0 else ctx.user
    add_user = f"sudo usermod -aG {ctx.group} {user}, then log out and back in"
    if ctx.group not in groups:
        return failed(GROUP, f"there is no group {ctx.group!r}", f"sudo groupadd --system {ctx.group} && {add_user}")
    gid, members = groups[ctx.group]
    if ctx.uid == 0:
        return passed(
            GROUP, f"group {ctx.group!r} exists; running as root (run doctor as the service's user to check it)"
        )
    if ctx.user not in members and ctx.gid != gid:
        return failed(GROUP, f"user {ctx.user!r} is not in group {ctx.group!r}", add_user)
    if gid not in ctx.process_gids and ctx.gid != gid:
        return failed(
            GROUP,
            f"user {ctx.user!r} was added to {ctx.group!r} after this session started",
            f"log out and back in (or run `newgrp {ctx.group}`) so the session holds the group",
        )
    return passed(GROUP, f"user {ctx.user!r} is in group {ctx.group!r}")


def _group_name(gid: int, ctx: Context) -> str:
    groups = read_groups(ctx.group_file) if ctx.group_file.is_file() else {}
    if groups.get(ctx.group, (None,))[0] == gid:
        return ctx.group
    names = [name for name, (g, _) in groups.items() if g == gid]
    if names:
        return names[0]
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


@check(DEVICES)
def device_permissions(ctx: Context) -> CheckResult:
    links = sorted(ctx.dev_root.glob("cardshoe*")) if ctx.dev_root.is_dir() else []
    if not links:
        return skipped(DEVICES, f"no {ctx.dev_root}/cardshoe* link: no shoe plugged in, or the rules are not active")
    problems, seen = [], []
    for link in links:
        try:
            st = os.stat(link)
        except OSError as exc:
            problems.append(f"{link}: {exc.strerror}")
            continue
        mode, group = stat.S_IMODE(st.st_mode), _group_name(st.st_gid, ctx)
        seen.append(f"{link} -> {os.path.realpath(link)} {mode:04o} {group}")
        if mode != DEVICE_MODE or group != ctx.group:
            problems.append(f"{link} is mode {mode:04o} group {group}, not {DEVICE_MODE:04o} group {ctx.group}")
    if problems:
        trigger = f"sudo udevadm trigger --action=change --attr-match=idVendor={usb_id_hex(ctx.vendor_id)}"
        return failed(DEVICES, "; ".join(problems), f"install the rules ({ctx.install_fix}), then {trigger}")
    return passed(DEVICES, "; ".join(seen))


def _processes(proc_root: Path) -> list[str] | None:
    if not proc_root.is_dir():
        return None
    names = []
    for entry in proc_root.iterdir():
        if entry.name.isdigit():
            try:
                names.append((entry / "comm").read_text().strip())
            except OSError:
                continue  # the process ended while we looked
    return names


@check(MODEM)
def modem_manager(ctx: Context) -> CheckResult:
    names = _processes(ctx.proc_root)
    if names is None:
        return skipped(MODEM, f"cannot list processes ({ctx.proc_root} does not exist)")
    if "ModemManager" not in names:
        return passed(MODEM, "ModemManager is not running")
    try:
        rules = parse_rules(ctx.installed_rules.read_text())
    except (OSError, RulesSyntaxError):
        rules = []
    if any(r.has("ENV{ID_MM_DEVICE_IGNORE}", "=", "1") for r in rules):
        return passed(MODEM, f"ModemManager is running; {ctx.installed_rules} tells it to ignore the shoe")
    return failed(
        MODEM,
        "ModemManager is running and no installed rule tells it to ignore the shoe: it will probe the port "
        "with AT commands for seconds after every plug",
        f"{ctx.install_fix}   (or, if no modem is used: sudo systemctl disable --now ModemManager)",
    )


def _usb_device(port: Path, root: Path) -> Path | None:
    """The USB device directory (the one with ``idVendor``) above a usb-serial port in sysfs."""
    for parent in (port, *port.parents):
        if (parent / "idVendor").is_file():
            return parent
        if parent == root:
            break
    return None


@check(LATENCY)
def latency_timer(ctx: Context) -> CheckResult:
    ports_dir = ctx.sysfs_root / "bus" / "usb-serial" / "devices"
    if not ports_dir.is_dir():
        return skipped(LATENCY, f"no USB-serial devices ({ports_dir} does not exist)")
    ids = (usb_id_hex(ctx.vendor_id), usb_id_hex(ctx.product_id))
    root = ctx.sysfs_root.resolve()
    ours, problems = [], []
    for entry in sorted(ports_dir.iterdir()):
        port = entry.resolve()
        usb = _usb_device(port, root)
        if usb is None or (_read(usb / "idVendor").lower(), _read(usb / "idProduct").lower()) != ids:
            continue
        timer = port / "latency_timer"
        text = _read(timer)
        if not text.isdigit():
            continue  # not an FTDI adapter (CDC-ACM has no latency timer): nothing to tune
        value = int(text)
        ours.append(f"{entry.name} {value} ms")
        if value > MAX_LATENCY_MS:
            problems.append((entry.name, value, timer))
    if not ours:
        return skipped(LATENCY, f"no FTDI adapter with id {ids[0]}:{ids[1]} attached (CDC-ACM has no latency timer)")
    if problems:
        name, value, timer = problems[0]
        return failed(
            LATENCY,
            f"{name} holds partial packets {value} ms (wanted <= {MAX_LATENCY_MS} ms)",
            f"echo {MAX_LATENCY_MS} | sudo tee {timer}   (for now; the installed rules set it at every plug: "
            f"{ctx.install_fix})",
        )
    return passed(LATENCY, ", ".join(ours))
