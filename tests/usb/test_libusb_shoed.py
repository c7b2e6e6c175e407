"""A real ``shoed`` dealing over ``usb://`` through pyusb, libusb 1.0 and usbdevfs (the umockdev bus), with the
cable pulled in the middle of a dispense and plugged back: the link is lost on ENODEV, restored through the
new device, the round reconciled and played to its end, and every card the shoe moved is journaled, once.

The shoe is an emulated one in this process (its ``cards_moved`` is the physical truth), served on TCP and
plugged into the bus as a USB device; ``shoed`` runs as its own process under the bus's preload.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.emulator import EmulatedShoe, EmulatorConfig, serve_tcp
from shoe.journal import Journal
from tests.e2e.conftest import write_config
from tests.e2e.support import Proc, Shoed, deck, duplicates, free_port
from tests.e2e.test_rounds_e2e_mississippi import play_mississippi
from tests.usb.libusb_bus import Bus

pytestmark = pytest.mark.timeout(300)

SERIAL = "LIBUSB02"
DECK = deck("As", "Ad", "2c", "7d", "Kh", "9s", "Qc")  # a whole deck, these on top


@pytest.fixture
def table(
    umockdev_bus: Bus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[EmulatedShoe, Shoed, Bus]]:
    shoe = EmulatedShoe(EmulatorConfig(deck=DECK, serial=SERIAL, timing="realistic"))
    tcp = serve_tcp(shoe, "127.0.0.1", 0)
    device = umockdev_bus.plug(tcp.address, SERIAL)
    for key, value in umockdev_bus.env({}).items():  # shoed inherits the preload and the testbed
        monkeypatch.setenv(key, value)
    config, http_port = tmp_path / "shoed.toml", free_port()
    write_config(config, http_port)
    procs: list[Proc] = []
    shoed = Shoed(tmp_path, device.url, tmp_path / "journal.sqlite", config, http_port=http_port, procs=procs)
    shoed.plugged = device  # type: ignore[attr-defined]
    shoed.tcp_address = tcp.address  # type: ignore[attr-defined]
    try:
        shoed.start()
        yield shoe, shoed, umockdev_bus
    finally:
        for proc in procs:
            proc.stop()
        current = shoed.plugged  # type: ignore[attr-defined]
        if current is not None:
            umockdev_bus.unplug(current)
        tcp.close()
        shoe.close()


def _unplug_when_the_first_card_moves(shoe: EmulatedShoe, shoed: Shoed, bus: Bus, moved: list[int]) -> None:
    deadline = time.monotonic() + 30
    while shoe.stats.cards_moved < 1 and time.monotonic() < deadline:
        time.sleep(0.002)
    bus.unplug(shoed.plugged)  # type: ignore[attr-defined]
    moved.append(shoe.stats.cards_moved)
    shoed.plugged = None  # type: ignore[attr-defined]
    time.sleep(0.5)  # the cable stays out a moment
    shoed.plugged = bus.plug(shoed.tcp_address, SERIAL)  # type: ignore[attr-defined]


def test_shoed_deals_over_libusb_and_an_unplug_mid_dispense_loses_no_card(
    table: tuple[EmulatedShoe, Shoed, Bus],
) -> None:
    shoe, shoed, bus = table
    api = shoed.api
    body = {"game": "mississippi-stud", "jurisdiction": "NY", "table": {"min_ante": 500, "max_ante": 50000}}
    opened = api.call("POST", "/v1/rounds", {**body, "seats": [{"seat": 1, "ante": 500}, {"seat": 2, "ante": 500}]})
    assert opened.status == 201, opened.body
    api.post("/v1/round/no-more-bets")
    moved_at_unplug: list[int] = []
    puller = threading.Thread(target=_unplug_when_the_first_card_moves, args=(shoe, shoed, bus, moved_at_unplug))
    puller.start()
    dealt = api.call("POST", "/v1/round/deal", timeout=60.0)
    puller.join(timeout=60)
    assert moved_at_unplug and 1 <= moved_at_unplug[0] < 4, moved_at_unplug  # the cable went mid-dispense
    status = shoed.wait_ready()  # the link comes back through the new device
    assert status["shoe"]["link"] == "up"
    assert dealt.status == 200 and [s["dispense_id"] for s in dealt.body["stacks"]] == [1, 2], dealt.body
    log = shoed.proc.log.read_text()
    assert '"errno": 19' in log and "shoe link restored" in log, shoed.proc.tail()  # libusb saw ENODEV, then the replug

    # The round goes on to its end through the new device: the stub out, three reveals scanned, settled.
    assert api.post("/v1/round/release-stub")["count"] == 52 - 4
    lines, _ = play_mississippi(api, {1: [1, 1, 1], 2: [1, 1, 1]}, ["Kh", "9s", "Qc"])
    assert [line["seat"] for line in lines] == [2, 1]

    # The physical truth against the journal: every card out of the shoe journaled once, none invented.
    assert shoed.stop() == 0, shoed.proc.tail()
    with Journal.open(shoed.journal) as journal:
        assert journal.verify().ok
        entries = list(journal.entries())
    cards = [e.data for e in entries if e.kind == "card" and e.data.get("dispense_id") is not None]
    assert len({(c["dispense_id"], c["position"]) for c in cards}) == len(cards) == shoe.stats.cards_moved, (
        dealt.status,
        dealt.body,
        cards,
    )
    assert not duplicates(entries)
