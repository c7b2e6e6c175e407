"""EmulatorConfig: defaults, validation, and the URL-query form (``emu://?seed=7&jam_at=5``)."""

from __future__ import annotations

import dataclasses

import pytest

from drivers.emulator import EmulatorConfig

VALID_KEYS = [f.name for f in dataclasses.fields(EmulatorConfig)]


def test_defaults() -> None:
    config = EmulatorConfig()
    assert (config.seed, config.deck, config.timing, config.auto_take) == (None, None, "instant", True)
    assert (config.model, config.serial, config.firmware) == ("EMU-1", "EMU0001", "emu-1.0")
    assert config.event_resend_s == 0.2 and config.count_known


def test_from_query_reads_every_kind_of_value() -> None:
    config = EmulatorConfig.from_query(
        "seed=7&deck=AsKd7c&jam_at=5&unreadable_at=3,9&corrupt_rate=0.01&timing=realistic&auto_take=0"
        "&door_open=true&take_delay_s=0.5&latency_ms=20&serial=SN9&misfeed_at=none&event_resend_s=0.1"
    )
    assert config == EmulatorConfig(
        seed=7, deck=("As", "Kd", "7c"), jam_at=5, unreadable_at=(3, 9), corrupt_rate=0.01, timing="realistic",
        auto_take=False, door_open=True, take_delay_s=0.5, latency_ms=20.0, serial="SN9", event_resend_s=0.1,
    )  # fmt: skip


@pytest.mark.parametrize("deck", ["AsKd7c", "As,Kd,7c", "As, Kd, 7c"])
def test_deck_concatenated_or_comma_separated(deck: str) -> None:
    assert EmulatorConfig.from_query(f"deck={deck}").deck == ("As", "Kd", "7c")


def test_leading_question_mark_and_empty_query() -> None:
    assert EmulatorConfig.from_query("?seed=1").seed == 1
    assert EmulatorConfig.from_query("") == EmulatorConfig()


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("sede=7", "sede"),
        ("seed=seven", "seed"),
        ("jam_at=x", "jam_at"),
        ("auto_take=maybe", "auto_take"),
        ("corrupt_rate=2", "corrupt_rate"),
        ("drop_rate=-0.1", "drop_rate"),
        ("timing=slow", "timing"),
        ("deck=AsK", "deck"),
        ("deck=AsXx", "deck"),
        ("latency_ms=-1", "latency_ms"),
        ("seed=1&seed=2", "seed"),
    ],
)
def test_bad_key_or_value_names_the_key_and_lists_the_valid_keys(query: str, key: str) -> None:
    with pytest.raises(ValueError, match=key) as raised:
        EmulatorConfig.from_query(query)
    assert all(name in str(raised.value) for name in VALID_KEYS)


def test_direct_construction_validates_too() -> None:
    with pytest.raises(ValueError, match="card 2"):
        EmulatorConfig(deck=("As", "1s"))
    with pytest.raises(ValueError, match="1-based"):
        EmulatorConfig(jam_at=0)
    with pytest.raises(ValueError, match="255"):
        EmulatorConfig(deck=("As",) * 256)
    with pytest.raises(ValueError, match="event_resend_s"):
        EmulatorConfig(event_resend_s=0)


def test_config_is_frozen_and_hashable() -> None:
    config = EmulatorConfig(deck=["As", "Kd"], unreadable_at=[1])  # type: ignore[arg-type]
    assert config.deck == ("As", "Kd") and config.unreadable_at == (1,)
    assert hash(config) == hash(EmulatorConfig(deck=("As", "Kd"), unreadable_at=(1,)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.seed = 3  # type: ignore[misc]
