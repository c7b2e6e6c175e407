"""The shoe's firmware digest (SPEC §12): the emulator over its image, the host's judgement.

A real emulator behind a real client: a byte swapped in the image changes the answer; a shoe without the
request is *unverified*; a replayed answer and a stale value are both *unapproved*, each named.
"""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path

import pytest

from drivers.client import ShoeClient
from drivers.emulator.firmware import DEFAULT_IMAGE
from protocols.codes import Capability
from shoe.cli.exit_codes import Exit
from shoe.cli.main import main
from shoe.release.firmware import FirmwareAnswer, expected_hmac, judge

SEED = bytes.fromhex("8f3a0c21d4e5f607")


def answer_of(port: str, seed: bytes = SEED) -> FirmwareAnswer:
    with ShoeClient.open(port) as client:
        report = client.firmware_digest(seed)
    assert report is not None
    return FirmwareAnswer(report.seed, report.hmac, report.firmware, report.bootloader, report.image_size)


def test_the_emulator_answers_the_hmac_of_its_shipped_image() -> None:
    answer = answer_of("emu://")
    assert answer.seed == SEED and answer.firmware == "emu-1.0" and answer.bootloader == "emu-boot-1.0"
    assert answer.hmac == expected_hmac(SEED, DEFAULT_IMAGE.read_bytes()) and answer.image_size == 16384
    assert judge(SEED, answer, {"emu-1.0": DEFAULT_IMAGE}).verdict == "approved"


def test_one_byte_swapped_in_the_image_changes_the_value_and_is_unapproved(tmp_path: Path) -> None:
    image = tmp_path / "fw.bin"
    shutil.copy(DEFAULT_IMAGE, image)
    before = answer_of(f"emu://?firmware_image={image}")
    data = bytearray(image.read_bytes())
    data[1000], data[1001] = data[1001], data[1000]
    image.write_bytes(bytes(data))
    after = answer_of(f"emu://?firmware_image={image}")
    assert after.hmac != before.hmac
    verdict = judge(SEED, after, {"emu-1.0": DEFAULT_IMAGE})
    assert verdict.verdict == "unapproved" and verdict.cause == "digest-differs"


def test_a_shoe_without_the_request_is_unverified_never_ok() -> None:
    with ShoeClient.open("emu://?firmware_image=none") as client:
        assert client.identity is not None
        assert not client.identity.capabilities & Capability.FIRMWARE_DIGEST
        assert client.firmware_digest(SEED) is None
    verdict = judge(SEED, None, {"emu-1.0": DEFAULT_IMAGE})
    assert verdict.verdict == "unverified" and "does not support FIRMWARE_DIGEST" in verdict.detail


def test_a_replayed_answer_is_detected_by_its_echoed_seed() -> None:
    old = answer_of("emu://", SEED)
    fresh = secrets.token_bytes(16)
    verdict = judge(fresh, old, {"emu-1.0": DEFAULT_IMAGE})
    assert verdict.verdict == "unapproved" and verdict.cause == "replayed-answer"
    assert SEED.hex() in verdict.detail and fresh.hex() in verdict.detail


def test_a_stale_value_under_the_fresh_seed_is_detected_by_recomputing() -> None:
    old = answer_of("emu://", SEED)
    fresh = secrets.token_bytes(16)
    stale = FirmwareAnswer(fresh, old.hmac, old.firmware, old.bootloader, old.image_size)  # the seed echoed, old value
    verdict = judge(fresh, stale, {"emu-1.0": DEFAULT_IMAGE})
    assert verdict.verdict == "unapproved" and "stale value" in verdict.detail


def test_an_identity_not_on_the_list_and_no_list_at_all() -> None:
    answer = answer_of("emu://?firmware=emu-9.9")
    verdict = judge(SEED, answer, {"emu-1.0": DEFAULT_IMAGE})
    assert verdict.verdict == "unapproved" and "'emu-9.9' is not on the approved list (emu-1.0)" in verdict.detail
    assert judge(SEED, answer, {}).verdict == "unverified"


def test_shoectl_verify_shoe_prints_the_answer_and_exits_by_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    approved = f"emu-1.0={DEFAULT_IMAGE}"
    assert main(["--json", "verify", "--shoe", "--approved-image", approved]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "approved" and len(data["hmac"]) == 64 and len(data["seed"]) == 32
    code = main(["--json", "verify", "--shoe", "--port", "emu://?firmware_image=none", "--approved-image", approved])
    assert code == Exit.UNVERIFIED and json.loads(capsys.readouterr().out)["verdict"] == "unverified"
    code = main(["--json", "verify", "--shoe", "--port", "emu://?firmware=emu-2.0", "--approved-image", approved])
    assert code == Exit.PROGRAM_MISMATCH


def test_a_seed_outside_4_to_64_bytes_is_refused_by_the_shoe() -> None:
    from drivers.errors import ShoeProtocolError
    from protocols.codes import NakCode

    with ShoeClient.open("emu://") as client, pytest.raises(ShoeProtocolError) as caught:
        client.firmware_digest(b"abc")
    assert caught.value.nak is NakCode.BAD_ARGUMENT


def test_an_older_shoe_answering_unknown_message_is_unverified_and_other_refusals_raise() -> None:
    from drivers.errors import ShoeProtocolError
    from drivers.firmware import ask_firmware_digest
    from protocols.codes import NakCode

    def older(*args: object) -> object:
        raise ShoeProtocolError("FIRMWARE_DIGEST refused: UNKNOWN_MESSAGE", nak=NakCode.UNKNOWN_MESSAGE)

    def busy(*args: object) -> object:
        raise ShoeProtocolError("FIRMWARE_DIGEST refused: BUSY", nak=NakCode.BUSY)

    assert ask_firmware_digest(older, SEED) is None
    with pytest.raises(ShoeProtocolError):
        ask_firmware_digest(busy, SEED)
