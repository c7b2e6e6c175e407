"""The fake USB shoe's descriptors, as pyusb reads them from a backend (``drivers.emulator.fake_usb``).

Device 1209:0001 (``drivers.usb_ids``), full speed, one configuration: interface 0 of the vendor class
with bulk OUT 0x01 and bulk IN 0x81 (64-byte packets), optionally a DFU interface 1; string descriptors
for the manufacturer, the product and the serial (LANGID 0x0409).
"""

from __future__ import annotations

from types import SimpleNamespace

from drivers.usb_ids import INTERFACE_CLASS

SHOE_OUT = 0x01
SHOE_IN = 0x81
MAX_PACKET = 64
BUS_NUMBER = 1
LANGID_EN_US = 0x0409
STRING_MANUFACTURER, STRING_PRODUCT, STRING_SERIAL = 1, 2, 3


class Descriptor(SimpleNamespace):
    """A USB descriptor as pyusb reads it: every standard field as an attribute, and ``extra_descriptors``."""


def _interface(number: int, cls: int, subclass: int = 0, protocol: int = 0, endpoints: int = 0) -> Descriptor:
    return Descriptor(bLength=9, bDescriptorType=4, bInterfaceNumber=number, bAlternateSetting=0, iInterface=0,
                      bNumEndpoints=endpoints, bInterfaceClass=cls, bInterfaceSubClass=subclass,
                      bInterfaceProtocol=protocol, extra_descriptors=[])  # fmt: skip


def _bulk_endpoint(address: int) -> Descriptor:
    return Descriptor(bLength=7, bDescriptorType=5, bEndpointAddress=address, bmAttributes=0x02, bInterval=0,
                      wMaxPacketSize=MAX_PACKET, bRefresh=0, bSynchAddress=0, extra_descriptors=[])  # fmt: skip


# interface index -> alternate settings -> (interface, its endpoints)
Layout = list[list[tuple[Descriptor, list[Descriptor]]]]
SHOE_INTERFACE = (_interface(0, INTERFACE_CLASS, endpoints=2), [_bulk_endpoint(SHOE_OUT), _bulk_endpoint(SHOE_IN)])
DFU_INTERFACE: tuple[Descriptor, list[Descriptor]] = (_interface(1, 0xFE, subclass=1, protocol=1), [])


def device_descriptor(vid: int, pid: int, serial_index: int, address: int, port: int) -> Descriptor:
    """The device descriptor, with the bus position libusb adds to it."""
    return Descriptor(  # speed 2 = LIBUSB_SPEED_FULL: 64-byte bulk packets
        bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0, bDeviceSubClass=0, bDeviceProtocol=0,
        bMaxPacketSize0=64, idVendor=vid, idProduct=pid, bcdDevice=0x0100, bNumConfigurations=1,
        iManufacturer=STRING_MANUFACTURER, iProduct=STRING_PRODUCT, iSerialNumber=serial_index, speed=2,
        bus=BUS_NUMBER, address=address, port_number=port, port_numbers=(port,), extra_descriptors=[],
    )  # fmt: skip


def configuration_descriptor(layout: Layout) -> Descriptor:
    """Configuration 1 of a device with this interface layout."""
    total = 9 + sum(9 + 7 * len(eps) for alts in layout for _, eps in alts)
    return Descriptor(
        bLength=9, bDescriptorType=2, wTotalLength=total, bNumInterfaces=len(layout), bConfigurationValue=1,
        iConfiguration=0, bmAttributes=0x80, bMaxPower=50, extra_descriptors=[],  # bus powered, 100 mA
    )  # fmt: skip
