"""A USB bus for real libusb: umockdev's testbed with shoes whose bulk endpoints are a byte stream to an emulator.

Runs under Debian's own ``/usr/bin/python3`` (the only Python with umockdev's GObject bindings,
``gir1.2-umockdev-1.0`` and ``python3-gi``) and imports nothing of this project: the shoe's bytes are
not parsed here, only carried, so the bus serves whatever protocol the emulator at the other end of the
TCP connection speaks. A process under test reaches the bus by inheriting ``UMOCKDEV_DIR`` (printed on
the first line, ``ready DIR SOCKET``) and ``LD_PRELOAD=libumockdev-preload.so.0``: libusb then finds the
device in the testbed's sysfs and its ``/dev/bus/usb/BBB/DDD`` node, and every ioctl on that node comes
here, to ``UsbDevfs``.

Commands, one line each on the unix socket ``SOCKET`` (answered by one line, ``ok ...`` or ``error ...``):

- ``plug HOST:PORT SERIAL``: a new device 1209:0001 (one vendor interface, bulk OUT 0x01 and bulk IN
  0x81 of 64-byte packets, that serial string) whose bulk OUT goes to a new TCP connection to HOST:PORT
  and whose bulk IN comes from it; answers ``ok SYSPATH DEVNODE``.
- ``unplug SYSPATH``: as a pulled cable: every URB in flight completes with -ENODEV, every later ioctl
  fails with ENODEV, the device is removed (a ``remove`` uevent) and its TCP connection closed.
- ``stats SYSPATH``: ``ok IOCTLS BYTES_OUT BYTES_IN`` so far.

The answers libusb 1.0.26 needs (linux_usbfs.c): capabilities, the connection information, the driver
query (none bound), claim and release, control URBs for descriptors and strings, bulk URBs (OUT sent at
submit, IN filled at reap from what the emulator sent), DISCARDURB (the URB is reaped with -ENOENT),
CLEAR_HALT and RESET. The node is a plain file to libusb's poll(), which therefore reaps all the time:
thousands of REAPURBNDELAY calls answered EAGAIN per second are expected.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import struct
import sys
import tempfile
import threading

import gi

gi.require_version("UMockdev", "1.0")
from gi.repository import GLib, UMockdev  # noqa: E402

VENDOR, PRODUCT = 0x1209, 0x0001
MANUFACTURER, PRODUCT_NAME = "pid.codes test device", "Card shoe emulator"
LANGID = 0x0409
OUT_EP, IN_EP, PACKET = 0x01, 0x81, 64

# usbdevfs request numbers (the low byte of _IOC('U', nr, ...)); the size bits differ per request.
CONTROL, BULK, SETINTERFACE, SETCONFIGURATION, GETDRIVER = 0, 2, 4, 5, 8
SUBMITURB, DISCARDURB, REAPURB, REAPURBNDELAY = 10, 11, 12, 13
CLAIMINTERFACE, RELEASEINTERFACE, CONNECTINFO, IOCTL, RESET, CLEAR_HALT = 15, 16, 17, 18, 20, 21
DISCONNECT, CONNECT, GET_CAPABILITIES, DISCONNECT_CLAIM, ALLOC_STREAMS, GET_SPEED, CONNINFO_EX = (
    22, 23, 26, 27, 28, 31, 32,
)  # fmt: skip
URB_TYPE_CONTROL, URB_TYPE_BULK = 2, 3
# struct usbdevfs_urb on a 64-bit machine: type, endpoint, status, flags, buffer, buffer_length, actual_length
URB_STATUS, URB_BUFFER, URB_LENGTH, URB_ACTUAL, URB_SIZE = 4, 16, 24, 28, 56
CAPABILITIES = 0x01 | 0x02 | 0x04 | 0x08  # zero packet, bulk continuation, no packet size limit, bulk scatter-gather
SPEED_FULL = 2


def _descriptors(serial_index: int) -> tuple[bytes, bytes]:
    device = struct.pack("<BBHBBBBHHHBBBB", 18, 1, 0x0200, 0, 0, 0, 64, VENDOR, PRODUCT, 0x0100, 1, 2,
                         serial_index, 1)  # fmt: skip
    interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0, 0, 0)
    endpoints = struct.pack("<BBBBHB", 7, 5, OUT_EP, 2, PACKET, 0) + struct.pack("<BBBBHB", 7, 5, IN_EP, 2, PACKET, 0)
    body = interface + endpoints
    config = struct.pack("<BBHBBBBB", 9, 2, 9 + len(body), 1, 1, 0, 0x80, 50) + body
    return device, config


def _read(data: object) -> bytes:
    """The bytes of an ioctl argument (or of memory it points to), as the client holds them."""
    return bytes(data.retrieve())


def _write(data: object, offset: int, new: bytes) -> None:
    """Change bytes of an argument; umockdev copies them back into the client when the ioctl completes."""
    data.update(offset, list(new))


def _string(text: str) -> bytes:
    encoded = text.encode("utf-16-le")[:253]
    return bytes([2 + len(encoded), 3]) + encoded


class UsbDevfs:
    """One plugged shoe: the ioctl handler of its node, and its TCP stream to the emulator."""

    def __init__(self, bus: Bus, syspath: str, devnode: str, serial: str, address: tuple[str, int]) -> None:
        self.bus, self.syspath, self.devnode, self.serial = bus, syspath, devnode, serial
        self.device_descriptor, self.config_descriptor = _descriptors(3 if serial else 0)
        self.stream = socket.create_connection(address, timeout=5)
        self.stream.settimeout(None)
        self.lock = threading.Lock()
        self.inbound = bytearray()  # bytes from the emulator not yet given to a bulk IN URB
        self.pending_in: list[object] = []  # submitted bulk IN URBs (IoctlData), oldest first
        self.completed: list[object] = []  # URBs ready to be reaped
        self.gone = False
        self.ioctls = self.bytes_out = self.bytes_in = 0
        self.handler = UMockdev.IoctlBase()
        self.handler.connect("handle-ioctl", self._handle)
        threading.Thread(target=self._pump, name=f"usb-in {serial}", daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                data = self.stream.recv(65536)
            except OSError:
                data = b""
            if not data:
                return
            with self.lock:
                self.inbound += data

    def unplug(self) -> None:
        with self.lock:
            self.gone = True
            for urb in self.pending_in:
                _write(urb, URB_STATUS, struct.pack("<i", -errno.ENODEV))
                self.completed.append(urb)
            self.pending_in.clear()
        with contextlib.suppress(OSError):
            self.stream.shutdown(socket.SHUT_RDWR)
        self.stream.close()

    # -- the ioctls
    def _handle(self, _handler: object, client: object) -> bool:
        request = client.get_request()
        if (request >> 8) & 0xFF != ord("U"):
            return False
        number = request & 0xFF
        self._request = request
        arg = client.get_arg()
        with self.lock:
            self.ioctls += 1
            if self.gone and not (number in (REAPURB, REAPURBNDELAY) and self.completed):
                client.complete(-1, errno.ENODEV)
                return True
            result, err = self._answer(number, arg)
        client.complete(result, err)
        return True

    def _answer(self, number: int, arg: object) -> tuple[int, int]:
        # The argument is the ioctl's third parameter itself: a struct's address is resolved into its memory.
        size = self._request >> 16 & 0x3FFF
        if number != DISCARDURB and size:
            arg = arg.resolve(0, URB_SIZE if number == SUBMITURB else size)
        if number == GET_CAPABILITIES:
            _write(arg, 0, struct.pack("<I", CAPABILITIES))
            return 0, 0
        if number == GET_SPEED:
            return SPEED_FULL, 0
        if number == CONNINFO_EX:
            # size, busnum, devnum, speed, num_ports, ports[7]
            info = struct.pack("<IIIIB7B", 24, 1, self.bus.devnum(self), SPEED_FULL, 1, 1, 0, 0, 0, 0, 0, 0)
            _write(arg, 0, info[:size])
            return 0, 0
        if number == CONNECTINFO:
            _write(arg, 0, struct.pack("<IB3x", self.bus.devnum(self), 0))
            return 0, 0
        if number == GETDRIVER:
            return -1, errno.ENODATA  # no kernel driver bound to any interface
        if number in (CLAIMINTERFACE, RELEASEINTERFACE, SETINTERFACE, CLEAR_HALT, RESET, CONNECT, DISCONNECT):
            return 0, 0
        if number == IOCTL:  # USBDEVFS_IOCTL wraps driver connect/disconnect: no driver to move
            return -1, errno.ENODATA
        if number == DISCONNECT_CLAIM:
            return 0, 0
        if number == SETCONFIGURATION:
            return 0, 0
        if number == SUBMITURB:
            return self._submit(arg)
        if number == DISCARDURB:
            return self._discard(arg)
        if number in (REAPURB, REAPURBNDELAY):
            return self._reap(arg)
        return -1, errno.ENOTTY

    def _submit(self, urb: object) -> tuple[int, int]:
        kind, endpoint = _read(urb)[:2]
        length = struct.unpack_from("<i", _read(urb), URB_LENGTH)[0]
        buffer = urb.resolve(URB_BUFFER, length)
        if kind == URB_TYPE_CONTROL:
            self._control(urb, buffer)
            self.completed.append(urb)
            return 0, 0
        if kind != URB_TYPE_BULK or endpoint not in (OUT_EP, IN_EP):
            return -1, errno.EINVAL
        if endpoint == OUT_EP:
            payload = _read(buffer)
            self.stream.sendall(payload)
            self.bytes_out += len(payload)
            _write(urb, URB_STATUS, struct.pack("<ii", 0, 0)[:4])
            _write(urb, URB_ACTUAL, struct.pack("<i", len(payload)))
            self.completed.append(urb)
        else:
            _write(urb, URB_STATUS, struct.pack("<i", 0))
            self.pending_in.append(urb)
        return 0, 0

    def _control(self, urb: object, buffer: object) -> None:
        setup = _read(buffer)[:8]
        request_type, request, value, index, want = struct.unpack("<BBHHH", setup)
        reply: bytes | None = None
        if request_type == 0x80 and request == 6:  # GET_DESCRIPTOR
            kind, which = value >> 8, value & 0xFF
            if kind == 1:
                reply = self.device_descriptor
            elif kind == 2 and which == 0:
                reply = self.config_descriptor
            elif kind == 3 and which == 0:
                reply = struct.pack("<BBH", 4, 3, LANGID)
            elif kind == 3 and index == LANGID:
                text = {1: MANUFACTURER, 2: PRODUCT_NAME, 3: self.serial}.get(which)
                reply = _string(text) if text else None
        elif request_type == 0x80 and request == 8:  # GET_CONFIGURATION
            reply = b"\x01"
        if reply is None:
            _write(urb, URB_STATUS, struct.pack("<i", -errno.EPIPE))  # the device stalls what it cannot answer
            _write(urb, URB_ACTUAL, struct.pack("<i", 0))
            return
        reply = reply[:want]
        _write(buffer, 8, reply)
        _write(urb, URB_STATUS, struct.pack("<i", 0))
        _write(urb, URB_ACTUAL, struct.pack("<i", len(reply)))

    def _discard(self, arg: object) -> tuple[int, int]:
        address = struct.unpack_from("<Q", _read(arg).ljust(8, b"\0"))[0]
        for urb in self.pending_in:
            if urb.client_addr == address:
                self.pending_in.remove(urb)
                _write(urb, URB_STATUS, struct.pack("<i", -errno.ENOENT))
                _write(urb, URB_ACTUAL, struct.pack("<i", 0))
                self.completed.append(urb)
                return 0, 0
        return -1, errno.EINVAL  # already completed: libusb then reaps it as it is

    def _reap(self, arg: object) -> tuple[int, int]:
        if not self.completed and self.pending_in and self.inbound:
            urb = self.pending_in.pop(0)
            length = struct.unpack_from("<i", _read(urb), URB_LENGTH)[0]
            buffer = urb.resolve(URB_BUFFER, length)
            chunk = bytes(self.inbound[:length])
            del self.inbound[:length]
            _write(buffer, 0, chunk)
            _write(urb, URB_STATUS, struct.pack("<i", 0))
            _write(urb, URB_ACTUAL, struct.pack("<i", len(chunk)))
            self.bytes_in += len(chunk)
            self.completed.append(urb)
        if not self.completed:
            return -1, errno.EAGAIN
        arg.set_ptr(0, self.completed.pop(0))
        return 0, 0


class Bus:
    """The testbed and its shoes; commands arrive on a unix socket."""

    def __init__(self) -> None:
        self.testbed = UMockdev.Testbed.new()
        self.devices: dict[str, UsbDevfs] = {}
        self.numbers: dict[str, int] = {}
        self.next_number = 2
        self.lock = threading.Lock()
        self.socket_path = os.path.join(tempfile.mkdtemp(prefix="shoe-usb-bus-"), "bus.sock")

    def devnum(self, device: UsbDevfs) -> int:
        return self.numbers[device.syspath]

    def plug(self, where: str, serial: str) -> str:
        host, _, port = where.rpartition(":")
        number, self.next_number = self.next_number, self.next_number + 1
        name = f"1-{number}"
        devnode = f"/dev/bus/usb/001/{number:03d}"
        device, config = _descriptors(3 if serial else 0)
        attributes = ["busnum", "1", "devnum", str(number), "idVendor", f"{VENDOR:04x}", "idProduct",
                      f"{PRODUCT:04x}", "speed", "12", "bConfigurationValue", "1", "bNumConfigurations", "1",
                      "manufacturer", MANUFACTURER, "product", PRODUCT_NAME]  # fmt: skip
        if serial:
            attributes += ["serial", serial]
        properties = ["DEVNAME", devnode, "DEVTYPE", "usb_device", "BUSNUM", "001", "DEVNUM", f"{number:03d}",
                      "ID_VENDOR_ID", f"{VENDOR:04x}", "ID_MODEL_ID", f"{PRODUCT:04x}"]  # fmt: skip
        attributes += ["dev", f"189:{number - 1}"]
        # sysfs values end with a newline, as the kernel writes them (libusb warns otherwise)
        attributes = [value + "\n" if i % 2 else value for i, value in enumerate(attributes)]
        syspath = self.testbed.add_device("usb", f"usb1/{name}", None, attributes, properties)
        node = os.path.join(self.testbed.get_root_dir(), devnode.lstrip("/"))
        if not os.path.exists(node):  # the node libusb opens: a plain file, its ioctls trapped by the preload
            os.makedirs(os.path.dirname(node), exist_ok=True)
            open(node, "wb").close()
        self.testbed.set_attribute_binary(syspath, "descriptors", device + config)
        shoe = UsbDevfs(self, syspath, devnode, serial, (host, int(port)))
        self.devices[syspath], self.numbers[syspath] = shoe, number
        self.testbed.attach_ioctl(devnode, shoe.handler)
        # add_device announced the device before its descriptors and node existed: a libusb already running
        # may have failed to read them then. Announce it again now that it is whole (libusb skips a device
        # it already has).
        self.testbed.uevent(syspath, "add")
        return f"ok {syspath} {devnode}"

    def unplug(self, syspath: str) -> str:
        shoe = self.devices.pop(syspath)
        shoe.unplug()
        self.testbed.uevent(syspath, "remove")
        self.testbed.remove_device(syspath)
        return "ok"

    def command(self, line: str) -> str:
        words = line.split()
        with self.lock:
            if words[:1] == ["plug"] and len(words) in (2, 3):
                return self.plug(words[1], words[2] if len(words) == 3 else "")
            if words[:1] == ["unplug"] and len(words) == 2 and words[1] in self.devices:
                return self.unplug(words[1])
            if words[:1] == ["stats"] and len(words) == 2 and words[1] in self.devices:
                shoe = self.devices[words[1]]
                return f"ok {shoe.ioctls} {shoe.bytes_out} {shoe.bytes_in}"
        return f"error unknown command or device: {line!r}"

    def serve(self) -> None:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(self.socket_path)
        server.listen(8)
        threading.Thread(target=self._accept, args=(server,), daemon=True).start()

    def _accept(self, server: socket.socket) -> None:
        while True:
            conn, _ = server.accept()
            threading.Thread(target=self._session, args=(conn,), daemon=True).start()

    def _session(self, conn: socket.socket) -> None:
        with conn, conn.makefile("rw", encoding="utf-8", newline="\n") as lines:
            for line in lines:
                try:
                    answer = self.command(line.strip())
                except Exception as exc:  # the answer carries it to the test
                    answer = f"error {type(exc).__name__}: {exc}"
                lines.write(answer + "\n")
                lines.flush()


def main() -> int:
    bus = Bus()
    bus.serve()
    print(f"ready {bus.testbed.get_root_dir()} {bus.socket_path}", flush=True)
    loop = GLib.MainLoop()
    # The test ends the bus by closing its stdin (or killing it): then the testbed is removed with it.
    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP,
                      lambda *_: (loop.quit(), False)[1])  # fmt: skip
    loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
