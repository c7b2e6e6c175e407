"""Table configuration, checked against the jurisdiction profile before a round can start.

A :class:`TableConfig` is what the operator sets (ante limits, a better NY/NJ paytable, the PA side
wagers offered); :func:`resolve_table` checks it against the profile and computes the aggregate cap,
giving the :class:`Table` a round plays under.
"""

from __future__ import annotations

from dataclasses import dataclass

from shoe.hands import Category
from shoe.rules.errors import RuleViolation
from shoe.rules.mississippi.cap import aggregate_cap
from shoe.rules.mississippi.side_wagers import SideWagerConfig
from shoe.rules.paytables import PROGRESSIVE_TABLES, BasePaytable, Paytable, check_floor
from shoe.rules.profiles import MississippiProfile, PaytablePolicy, SideBet

__all__ = ["Table", "TableConfig", "resolve_table"]


@dataclass(frozen=True)
class TableConfig:
    """What the operator configures; amounts in cents.  ``paytable=None`` uses the profile's."""

    min_ante: int
    max_ante: int
    paytable: BasePaytable | None = None
    side: SideWagerConfig | None = None


@dataclass(frozen=True)
class Table:
    """A checked configuration: everything a round needs besides the profile's rules."""

    profile: MississippiProfile
    min_ante: int
    max_ante: int
    paytable: BasePaytable
    cap: int
    side: SideWagerConfig | None

    @property
    def offered(self) -> frozenset[SideBet]:
        return frozenset() if self.side is None else self.side.offered

    @property
    def progressive_lockout(self) -> bool:
        """PA: lock the progressive system and count its chips before the first stack."""
        return self.profile.progressive_lockout_before_first_stack and SideBet.PROGRESSIVE in self.offered

    @property
    def progressive_paytable(self) -> Paytable[Category]:
        name = "A" if self.side is None else self.side.progressive_table
        return PROGRESSIVE_TABLES[name]


def _check_paytable(profile: MississippiProfile, table: BasePaytable | None) -> BasePaytable:
    if table is None:
        return profile.paytable
    if profile.paytable_policy is PaytablePolicy.FIXED:
        if table.as_dict() != profile.paytable.as_dict():
            raise RuleViolation(
                f"paytable {table.name!r} refused: the {profile.jurisdiction} paytable is fixed",
                rule=profile.rules.paytable,
                code="paytable-fixed",
            )
        return profile.paytable
    check_floor(table, profile.paytable, profile.rules.paytable)
    return table


def _check_side(profile: MississippiProfile, side: SideWagerConfig | None) -> None:
    if side is None or not side.offered:
        return
    rule = profile.rules.progressive or profile.regulation
    extra = side.offered - profile.side_bets
    if extra:
        names = ", ".join(sorted(b.value for b in extra))
        allowed = ", ".join(sorted(b.value for b in profile.side_bets)) or "none"
        raise RuleViolation(
            f"side wagers {names} are not offered in {profile.jurisdiction} (allowed: {allowed})",
            rule=rule,
            code="invalid-configuration",
        )
    if side.progressive_table not in profile.progressive_tables:
        raise RuleViolation(
            f"progressive table {side.progressive_table!r} unknown; choose one of "
            + ", ".join(profile.progressive_tables),
            rule=rule,
            code="invalid-configuration",
        )
    if SideBet.ENVY in side.offered and SideBet.PROGRESSIVE not in side.offered:
        raise RuleViolation(
            "the Envy Bonus rides on the Progressive Payout wager",
            rule=profile.rules.envy,
            code="invalid-configuration",
        )
    if SideBet.ENVY in side.offered and side.envy is None:
        raise RuleViolation(
            "Envy Bonus offered but its amounts are not set (no default: the operator's rules submission)",
            rule=profile.rules.envy,
            code="configuration-required",
        )
    if SideBet.FIVE_CARD_HAND_BONUS in side.offered and side.five_card is None:
        raise RuleViolation(
            "Five Card Hand Bonus offered but its paytables are not set (no default)",
            rule=profile.rules.five_card_hand_bonus,
            code="configuration-required",
        )
    if side.progressive_wager <= 0 or side.bonus_min <= 0 or side.bonus_max < side.bonus_min:
        raise RuleViolation("side wager limits must be positive, min <= max", rule=rule, code="invalid-configuration")


def resolve_table(profile: MississippiProfile, config: TableConfig) -> Table:
    """Check ``config`` against ``profile``; a refusal (code ``invalid-configuration``) names what is wrong."""
    for name in ("min_ante", "max_ante"):
        value = getattr(config, name)
        if type(value) is not int or value <= 0:
            raise RuleViolation(
                f"{name} must be whole cents > 0, not {value!r}",
                rule=profile.rules.wagers,
                code="invalid-configuration",
            )
    if config.max_ante < config.min_ante:
        raise RuleViolation(
            f"max_ante {config.max_ante} is below min_ante {config.min_ante}",
            rule=profile.rules.wagers,
            code="invalid-configuration",
        )
    paytable = _check_paytable(profile, config.paytable)
    _check_side(profile, config.side)
    cap = aggregate_cap(config.min_ante, paytable, profile.cap.floor_cents)
    return Table(profile, config.min_ante, config.max_ante, paytable, cap, config.side)
