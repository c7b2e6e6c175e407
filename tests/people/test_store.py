"""The people desk on its own: journal before state, the [people] configuration, the store file's mode."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shoe.people.desk import People
from shoe.people.duties import Acting
from shoe.people.errors import PeopleError
from shoe.people.store import PeopleStore
from shoe.service.config.settings import ConfigError, load_config
from shoe.service.journal.entries import check_entry

INSTALLER = Acting(None, None, (), "config", installer=True)
FAY = Acting("f-1", "Fay", ("floorperson",), "session")


class Journal:
    def __init__(self) -> None:
        self.entries: list[dict[str, Any]] = []
        self.fail = False

    def __call__(self, data: dict[str, Any], by: Any) -> None:
        if self.fail:
            raise PeopleError("journal-error", "the journal refused the entry: nothing was changed", 503)
        entry = {**data, **({"by": dict(by)} if by else {})}
        check_entry("people", entry)  # every entry the desk makes fits its typed payload
        self.entries.append(entry)


def test_a_change_the_journal_refuses_is_not_stored(tmp_path: Path) -> None:
    journal = Journal()
    people = People(PeopleStore(tmp_path / "people.sqlite"), journal)
    people.add("d-1", "Dana", ["dealer"], badge="11", pin="1234", actor=INSTALLER)
    journal.fail = True
    with pytest.raises(PeopleError) as refused:
        people.add("d-2", "Dora", ["dealer"], badge="12", pin="1234", actor=INSTALLER)
    assert refused.value.status == 503
    with pytest.raises(PeopleError):
        people.set_enabled("d-1", False, INSTALLER)
    with pytest.raises(PeopleError):
        people.sign_in("11", "1234")
    assert [e.id for e in people.store.all()] == ["d-1"]
    assert people.get("d-1").enabled
    assert people.sessions.live() == []
    assert (tmp_path / "people.sqlite").stat().st_mode & 0o777 == 0o600


def test_every_entry_the_desk_makes_fits_its_payload_and_none_holds_a_credential(tmp_path: Path) -> None:
    journal = Journal()
    people = People(PeopleStore(tmp_path / "people.sqlite"), journal, pin_tries=2)
    people.add("d-1", "Dana", ["dealer"], badge="11", pin="1234", actor=FAY)
    token_id, token = people.issue_token("d-1", "tablet", FAY)
    for _ in range(2):
        with pytest.raises(PeopleError):
            people.sign_in("11", "9999")
    people.reset_pin("d-1", "5678", FAY)
    signed = people.sign_in("11", "5678", "192.0.2.9")  # the failing client itself still waits its back-off
    people.sign_out(signed.token)
    people.revoke_token(token_id, FAY)
    people.remove("d-1", FAY)
    text = repr(journal.entries)
    for secret in ("1234", "5678", "9999", token, signed.token, "'11'"):
        assert secret not in text
    people.flush_failures(every=True)
    assert {e["action"] for e in journal.entries} >= {"employee-added", "token-issued", "sign-in-failures",
                                                      "pin-reset", "signed-in", "signed-out",
                                                      "token-revoked", "employee-removed"}  # fmt: skip


def test_the_people_section_is_checked(tmp_path: Path) -> None:
    config = tmp_path / "shoed.toml"
    config.write_text('[people]\npath = "staff.sqlite"\nsession_idle = 60\npin_tries = 3\n', encoding="utf-8")
    loaded = load_config(config, {}, environ={})
    assert (loaded.people_path, loaded.session_idle, loaded.pin_tries) == (tmp_path / "staff.sqlite", 60.0, 3)
    for bad, key in (("pin_tries = 0", "pin_tries"), ("pin_tries = true", "pin_tries"),
                     ("session_idle = -1", "session_idle"), ("session_idle = inf", "session_idle"),
                     ("lockout = 3", "lockout")):  # fmt: skip
        config.write_text(f"[people]\n{bad}\n", encoding="utf-8")
        with pytest.raises(ConfigError, match=rf"\[people\] {key}"):
            load_config(config, {}, environ={})
