"""``shoectl devices`` without libusb: the note says what to install, not only that it is missing."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import usb.backend.libusb1

from drivers import usb_discovery
from shoe.cli.main import main


@pytest.fixture
def no_libusb(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """pyusb finds no libusb 1.0 library, as on a machine without Debian's libusb-1.0-0."""
    monkeypatch.setattr(usb.backend.libusb1, "get_backend", lambda *a, **k: None)
    usb_discovery.set_backend(None)
    yield
    usb_discovery.set_backend(None)


@pytest.mark.usefixtures("no_libusb")
def test_devices_names_the_debian_package_and_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    note = next(line for line in out.splitlines() if "libusb 1.0 was not found" in line)
    assert "libusb-1.0-0" in note and "sudo apt install libusb-1.0-0" in note, out


@pytest.mark.usefixtures("no_libusb")
def test_devices_json_note_carries_the_hint(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "devices"]) == 0
    (note,) = json.loads(capsys.readouterr().out)["notes"]
    assert "libusb 1.0 was not found" in note and "sudo apt install libusb-1.0-0" in note
