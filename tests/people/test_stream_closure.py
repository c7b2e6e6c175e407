"""An event stream ends with the credential it was opened with (docs/people.md, "Streams end with their
credential"): sign-out, idle expiry, the employee disabled or removed, the token revoked.

Each stream is a real ``GET /v1/events`` read on its own thread until the server closes it; the test
ends the credential and waits for the close. Before the change such a stream kept sending keep-alives
and events for as long as the client kept it open.
"""

from __future__ import annotations

import http.client
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.e2e.conftest import Table as E2ETable
from tests.e2e.support import TOKENS
from tests.people.conftest import Table
from tests.people.test_people_e2e import ok

CLOSE_WITHIN_S = 10.0  # the server checks each POLL_S (0.25 s); generous for a loaded machine


@dataclass
class Stream:
    """One ``GET /v1/events`` read to its end on a thread of its own."""

    port: int
    token: str
    status: int = 0
    opened: threading.Event = field(default_factory=threading.Event)
    ended: threading.Event = field(default_factory=threading.Event)

    def start(self) -> Stream:
        threading.Thread(target=self._read, daemon=True).start()
        assert self.opened.wait(10), "the stream did not open"
        assert self.status == 200, self.status
        return self

    def _read(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=CLOSE_WITHIN_S * 3)
        try:
            conn.request("GET", "/v1/events", headers={"Authorization": f"Bearer {self.token}"})
            response = conn.getresponse()
            self.status = response.status
            self.opened.set()
            while response.read1(4096):
                pass
        except OSError:
            pass
        finally:
            self.opened.set()
            self.ended.set()
            conn.close()


def _still_open(streams: list[Stream]) -> list[Stream]:
    time.sleep(1.0)  # several of the server's checks: a live credential's stream stays open
    return [s for s in streams if s.ended.is_set()]


def test_streams_end_with_sign_out_disable_remove_and_revoke_through_shoed(e2e: Callable[..., E2ETable]) -> None:
    table = e2e()
    port, tech = table.api.port, TOKENS["technician"]
    for eid, role, badge in (("d-1", "dealer", "11"), ("d-2", "dealer", "12"), ("d-3", "dealer", "13")):
        ok(table, "POST", "/v1/people", {"id": eid, "name": eid, "roles": [role], "badge": badge, "pin": "4321"}, tech)
    ok(table, "POST", "/v1/people", {"id": "sys-1", "name": "Controller", "roles": ["table-system"]}, tech)
    sessions = [ok(table, "POST", "/v1/sessions", {"badge": b, "pin": "4321"})["token"] for b in ("11", "12", "13")]
    issued = ok(table, "POST", "/v1/people/tokens", {"id": "sys-1", "label": "tgs"}, tech)
    streams = [Stream(port, t).start() for t in (*sessions, issued["token"])]
    bystander = Stream(port, tech).start()  # a configuration token's stream: nothing ends it
    assert _still_open([*streams, bystander]) == []

    ends = (
        lambda: ok(table, "POST", "/v1/session/sign-out", {}, sessions[0]),
        lambda: ok(table, "POST", "/v1/people/disable", {"id": "d-2"}, tech),
        lambda: ok(table, "POST", "/v1/people/remove", {"id": "d-3"}, tech),
        lambda: ok(table, "POST", "/v1/people/tokens/revoke", {"token_id": issued["token_id"]}, tech),
    )
    for end, stream in zip(ends, streams, strict=True):
        assert not stream.ended.is_set()
        end()
        assert stream.ended.wait(CLOSE_WITHIN_S), "the stream outlived its credential"
    assert not bystander.ended.is_set()


def test_a_stream_ends_when_its_session_idles_out(make_table: Callable[..., Table]) -> None:
    table = make_table(session_idle=1.5)
    table.add("d-1", "Dana", ["dealer"], "11", "4321")
    session = table.sign_in("11", "4321")
    stream = Stream(table.server.address[1], session).start()
    # the stream itself does not keep the session alive: only requests do
    assert stream.ended.wait(1.5 + CLOSE_WITHIN_S), "the stream outlived the idle session"
    assert table.call("GET", "/v1/round", token=session).status == 401
