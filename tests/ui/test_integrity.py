"""The dealer display and the technician page show a verification alarm, in a real Chromium.

A real ``TableService`` on an emulator whose firmware image has one byte changed, approved list = the
shipped image: the dealer sees a "Verification" banner, the technician the verdict and the alarm; after
the technician's clear-fault the banner goes.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from drivers.emulator.firmware import DEFAULT_IMAGE
from shoe.api import ApiServer
from shoe.service import ServiceConfig, TableService
from shoe.service.config.verify import VerifyConfig
from tests.ui.conftest import Table, open_page


@pytest.fixture
def unapproved(tmp_path: Path) -> Iterator[Table]:
    image = tmp_path / "reflashed.bin"
    shutil.copy(DEFAULT_IMAGE, image)
    data = bytearray(image.read_bytes())
    data[0] ^= 0x01
    image.write_bytes(bytes(data))
    verify = VerifyConfig(firmware=MappingProxyType({"emu-1.0": DEFAULT_IMAGE}), interval_s=0)
    config = ServiceConfig(
        shoe_port=f"emu://?seed=7&firmware_image={image}",
        journal=tmp_path / "j.sqlite",
        http_host="127.0.0.1",
        http_port=0,
        verify=verify,
    )
    service = TableService(config)
    service.start()
    table = Table(service, ApiServer(service, "127.0.0.1", 0, tokens=config.tokens).start(), [])
    yield table
    table.api.stop()
    service.stop()


def test_the_dealer_and_the_technician_see_the_alarm_until_it_is_acknowledged(unapproved: Table, page: Any) -> None:
    open_page(page, unapproved, "dealer.html")
    banner = page.locator('[data-banner="integrity"]')
    banner.wait_for()
    assert "firmware is not approved" in banner.inner_text() and "Call a technician" in banner.inner_text()
    open_page(page, unapproved, "technician.html")
    identity = page.locator("#identity").inner_text()
    assert "unapproved" in identity and "firmware-unapproved" in identity
    unapproved.client.ok("POST", "/v1/maintenance/clear-fault", {})
    open_page(page, unapproved, "dealer.html")
    page.wait_for_function("() => !document.querySelector('[data-banner=\"integrity\"]')")
