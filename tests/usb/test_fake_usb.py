"""The fake USB backend, driven through pyusb itself (``usb.core.find(backend=...)``).

The fake backend stands in for a physical USB bus, the one thing that cannot exist here: everything
above it (pyusb's device, configuration, interface and endpoint objects, string descriptors, claiming,
bulk transfers and their errors) is the real pyusb code the driver uses in the field.

``tests/__init__.py`` makes this directory the package ``tests.usb``; without it a package here would
be named ``usb`` and hide pyusb.
"""

from __future__ import annotations

import errno
from typing import Any

import pytest
import usb.core
import usb.util

from drivers.emulator import EmulatedShoe, EmulatorConfig
from drivers.emulator.fake_usb import SHOE_IN, SHOE_OUT, FakeUsbBus
from drivers.usb_ids import INTERFACE_CLASS, PRODUCT_ID, VENDOR_ID
from tests.usb.usb_support import LoopbackShoe


def find(bus: FakeUsbBus, **match: Any) -> Any:
    return usb.core.find(backend=bus.backend(), idVendor=VENDOR_ID, idProduct=PRODUCT_ID, **match)


def test_find_reads_descriptors_and_strings(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("EMU0042"))
    dev = find(bus)
    try:
        assert (dev.idVendor, dev.idProduct, dev.bus) == (VENDOR_ID, PRODUCT_ID, 1)
        assert dev.langids == (0x0409,)  # get_string asks for the LANGID list first
        assert usb.util.get_string(dev, dev.iSerialNumber) == "EMU0042"
        assert dev.serial_number == "EMU0042"
        assert dev.product and dev.manufacturer
        cfg = dev[0]
        assert (cfg.bConfigurationValue, cfg.bNumInterfaces, cfg.extra_descriptors) == (1, 1, [])
        (intf,) = cfg.interfaces()  # iterating alternate settings ends: the fake raises IndexError
        assert intf.bInterfaceClass == INTERFACE_CLASS
        assert [(ep.bEndpointAddress, ep.wMaxPacketSize) for ep in intf] == [(SHOE_OUT, 64), (SHOE_IN, 64)]
        assert "DEVICE ID 1209:0001" in str(dev)  # pyusb's full dump touches every field
    finally:
        usb.util.dispose_resources(dev)


def test_missing_alternate_setting_raises_index_error(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe(), dfu_interface=True)
    backend = bus.backend()
    (dev_id,) = backend.enumerate_devices()
    with pytest.raises(IndexError):
        backend.get_interface_descriptor(dev_id, 0, 1, 0)
    with pytest.raises(IndexError):
        backend.get_interface_descriptor(dev_id, 2, 0, 0)
    with pytest.raises(IndexError):
        backend.get_endpoint_descriptor(dev_id, 2, 0, 0, 0)
    dev = find(bus)
    assert [i.bInterfaceNumber for i in dev[0]] == [0, 1]
    ep = usb.util.find_descriptor(dev[0][(0, 0)], bEndpointAddress=SHOE_IN)  # a lookup that ends
    assert ep is not None
    with pytest.raises(IndexError):
        dev[0][(0, 1)]


def test_kernel_driver_blocks_claim_until_detached(bus: FakeUsbBus) -> None:
    device = bus.add(LoopbackShoe())
    dev = find(bus)
    try:
        assert dev.is_kernel_driver_active(0)
        with pytest.raises(usb.core.USBError) as busy:
            usb.util.claim_interface(dev, 0)
        assert busy.value.errno == errno.EBUSY
        dev.detach_kernel_driver(0)
        usb.util.claim_interface(dev, 0)
        assert device.detached == [0]
    finally:
        usb.util.dispose_resources(dev)


def test_bulk_round_trip_timeout_and_overflow(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe(), kernel_drivers=())
    dev = find(bus)
    try:
        with pytest.raises(usb.core.USBTimeoutError) as timed_out:
            dev.read(SHOE_IN, 64, 10)
        assert timed_out.value.errno == errno.ETIMEDOUT
        assert dev.write(SHOE_OUT, b"x" * 100, 100) == 100
        with pytest.raises(usb.core.USBError) as overflow:
            dev.read(SHOE_IN, 10, 100)  # not a multiple of the max packet size
        assert overflow.value.errno == errno.EOVERFLOW
        assert bytes(dev.read(SHOE_IN, 64, 100)) == b"x" * 64
        assert bytes(dev.read(SHOE_IN, 64, 100)) == b"x" * 36
        with pytest.raises(ValueError, match="forever"):
            dev.read(SHOE_IN, 64, 0)
    finally:
        usb.util.dispose_resources(dev)


def test_unplug_kills_the_old_device_and_replug_moves_it(bus: FakeUsbBus) -> None:
    shoe = LoopbackShoe()
    device = bus.add(shoe, kernel_drivers=())
    dev = find(bus)
    old_address = dev.address
    dev.write(SHOE_OUT, b"hi", 100)
    bus.unplug(shoe)
    assert find(bus) is None
    with pytest.raises(usb.core.USBError) as gone:
        dev.read(SHOE_IN, 64, 100)
    assert gone.value.errno == errno.ENODEV
    usb.util.dispose_resources(dev)
    bus.replug(shoe)
    again = find(bus)
    assert again is not None and again.address != old_address
    with pytest.raises(usb.core.USBError) as still_gone:  # the old Device object stays dead
        dev.write(SHOE_OUT, b"x", 100)
    assert still_gone.value.errno == errno.ENODEV
    usb.util.dispose_resources(dev)
    assert device.handles == set()


def test_emulator_unplug_and_replug_between_calls_is_noticed(bus: FakeUsbBus) -> None:
    shoe = EmulatedShoe(EmulatorConfig(seed=1))
    try:
        bus.add(shoe, kernel_drivers=())
        dev = find(bus)
        dev.write(SHOE_OUT, b"\x00", 100)
        shoe.unplug()  # the emulator counts unplugs (link_generation): the fake sees this one
        shoe.replug()
        with pytest.raises(usb.core.USBError) as gone:
            dev.write(SHOE_OUT, b"\x00", 100)
        assert gone.value.errno == errno.ENODEV
        usb.util.dispose_resources(dev)
        shoe.close()  # host_read/host_write now raise EmulatorUnplugged: ENODEV through pyusb
        dev = find(bus)
        with pytest.raises(usb.core.USBError) as closed:
            dev.write(SHOE_OUT, b"\x00", 100)
        assert closed.value.errno == errno.ENODEV
        usb.util.dispose_resources(dev)
    finally:
        shoe.close()


def test_second_claim_is_busy_and_inaccessible_device_is_denied(bus: FakeUsbBus) -> None:
    bus.add(LoopbackShoe("A"), kernel_drivers=())
    bus.add(LoopbackShoe("B"), accessible=False)
    first, second = find(bus, serial_number="A"), find(bus, serial_number="A")
    try:
        usb.util.claim_interface(first, 0)
        with pytest.raises(usb.core.USBError) as busy:
            usb.util.claim_interface(second, 0)
        assert busy.value.errno == errno.EBUSY
        denied = list(usb.core.find(find_all=True, backend=bus.backend()))[1]
        with pytest.raises(usb.core.USBError) as no_access:
            usb.util.get_langids(denied)
        assert no_access.value.errno == errno.EACCES
    finally:
        usb.util.dispose_resources(first)
        usb.util.dispose_resources(second)


def test_set_configuration_is_counted_and_binds_drivers(bus: FakeUsbBus) -> None:
    device = bus.add(LoopbackShoe(), configured=False)
    dev = find(bus)
    try:
        with pytest.raises(usb.core.USBError, match="Configuration not set"):
            dev.get_active_configuration()
        assert device.kernel_drivers == set()
        dev.set_configuration()
        assert device.set_configuration_calls == 1 and device.kernel_drivers == {0}
        with pytest.raises(usb.core.USBError) as busy:  # a driver is bound: the "light reset" is refused
            dev.set_configuration()
        assert busy.value.errno == errno.EBUSY
    finally:
        usb.util.dispose_resources(dev)
