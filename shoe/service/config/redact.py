"""Secrets in configured URLs, kept out of every message: credentials in a URL's userinfo or query, and the
emulator options that predict the cards (docs/service.md, "Secrets in the configuration").

A URL enters the service in two places, ``[floor] url`` (a libpq connection URL) and ``[shoe] port`` (with
its ``--port`` override); both pass through here before anything quotes them. Two rules, because a
malformed URL is exactly the one a parser quotes back whole in its error:

- **What may be shown** (:func:`shown_url`): the scheme, the user name before a password (``u:...@``), the
  host part after the *last* ``@`` (a password holding an ``@`` is hidden whole), the path, and the query's
  option names with the values of :data:`SHOWN_OPTIONS` only, up to the first free-form secret option (what
  follows it is its value: :func:`_options`). Userinfo without a colon is ``...@`` (in
  other schemes it is a token); every other value ``...``.
- **What may not appear** (:func:`scrub`): a message about the URL (a parser's, ours) keeps its text only
  if no piece of a secret is in it: every 4-character window of the userinfo and of each secret value, and
  each card of a deck (a list, or written together), are looked for (case-insensitively); if one is there
  the detail is replaced by a sentence that says only that it is malformed. A false alarm costs detail, never a secret.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["FREE_FORM_SECRETS", "HIDDEN", "SECRET_OPTIONS", "SHOWN_OPTIONS", "scrub", "secrets_of", "shown_url"]

SECRET_OPTIONS = frozenset({"deck", "seed", "password", "sslpassword", "passfile", "sslkey", "sslcert"})
"""Query options whose values are secrets: the emulator's ``deck`` and ``seed`` give away every card; the
rest are libpq's credentials (or the files that hold them)."""
FREE_FORM_SECRETS = SECRET_OPTIONS - {"deck", "seed"}
"""Secret options whose values may hold any character, ``&`` and ``=`` included (libpq's credentials), so
their end cannot be told from the next option's start. A ``deck`` is cards and a ``seed`` an integer: no
value either parser accepts holds an ``&``, and both parsers (ours, ``parse_qsl``) end them at the next one."""
SHOWN_OPTIONS = frozenset({"sslmode", "target_session_attrs", "connect_timeout", "application_name", "baud", "timing"})
"""Query options whose values are shown: they say how to connect, never to what with which secret."""
WINDOW = 4
_CARD = re.compile(r"^[2-9tjqka][cdhs]$", re.IGNORECASE)


_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")


def _split(url: str) -> tuple[str, str, str, str]:
    """(scheme, userinfo, rest of the address, query and any fragment) of a URL, however malformed.

    The userinfo ends at the *last* ``@`` of the whole URL, past any ``/``, ``?`` or ``#`` a password may
    hold unencoded (and with a ``?`` before that ``@``, where the ``@`` may be a query value's, the whole
    rest is taken as userinfo): hiding too much is the safe way to be wrong."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "", url
    userinfo, at, after = rest.rpartition("@")
    if not at:
        userinfo, after = "", rest
    elif "?" in userinfo:  # a ? before the last @: a password's or a query value's, nobody can tell: hide it all
        userinfo, after = rest, ""
    address, _, query = after.partition("?")
    return scheme, userinfo, address.partition("#")[0], query  # the query keeps a fragment: it may be a value's


def _options(query: str) -> list[tuple[str, str]]:
    """The query's ``name=value`` pairs as written (not decoded); a piece that is not one (an ``&`` inside
    a value) belongs to the value before it, so a secret value is never split into a shown name.

    Everything after a free-form secret option's ``=`` (:data:`FREE_FORM_SECRETS`) is that option's value,
    however many ``&name=`` it holds: an unencoded password may hold them (``password=&a0=``), and no rule can
    tell its end from the next option's start. Hiding the options written after it is the safe way to be wrong
    (docs/service.md says to write such options last). A ``deck`` or ``seed`` ends at the next ``&``, as it
    does for the emulator's parser: a value holding one is no deck or seed, and options written after it keep
    their names in messages (``deck_file`` in "both name the order")."""
    pairs: list[tuple[str, str]] = []
    for piece in query.split("&"):
        name, eq, value = piece.partition("=")
        if eq and _NAME.fullmatch(name) and not (pairs and pairs[-1][0] in FREE_FORM_SECRETS):
            pairs.append((name, value))
        elif pairs:
            pairs[-1] = (pairs[-1][0], f"{pairs[-1][1]}&{piece}")
        else:
            pairs.append(("", piece))
    return pairs


def shown_url(url: str) -> str:
    """The URL as a message may show it (module docstring): no userinfo, no secret option's value."""
    scheme, userinfo, host, query = _split(url)
    shown = f"{scheme}://" if scheme else ""
    user, colon, _ = userinfo.partition(":")
    shown += (f"{user}:...@" if colon and _NAME.fullmatch(user) else "...@" if userinfo else "") + host
    query = query.partition("#")[0]
    if query:
        shown += "?" + "&".join(f"{k or '...'}={v if k in SHOWN_OPTIONS else '...'}" for k, v in _options(query))
    return shown


def secrets_of(url: str) -> list[str]:
    """Every secret piece of ``url``: its password (or colonless userinfo), as written and decoded, and each
    secret option's value (and any piece of the query that is not an option of its own)."""
    _, userinfo, _, query = _split(url)
    user, colon, password = userinfo.partition(":")
    secret = password if colon and _NAME.fullmatch(user) else userinfo  # a plain user name is shown
    pieces = [secret, unquote(secret)] if secret else []
    for key, value in _options(query):
        if (key in SECRET_OPTIONS or not key) and value:
            pieces += [value, unquote(value)]
    return pieces


def _cards(piece: str) -> list[str]:
    """The cards of a deck as the emulator reads one (``parse_deck``): a list (``As,Kd``) or written together
    (``AsKd``); nothing for a piece that is not all cards."""
    cards: list[str] = []
    for part in re.split(r"[,\s]+", piece):
        chunks = [part[i : i + 2] for i in range(0, len(part), 2)]
        if part and len(part) % 2 == 0 and all(_CARD.match(chunk) for chunk in chunks):
            cards += chunks
    return cards


def _leaks(text: str, pieces: list[str]) -> bool:
    lowered = text.lower()
    for piece in pieces:
        low = piece.lower()
        if len(low) < WINDOW:
            if len(low) >= 2 and low in lowered:
                return True
            continue
        if any(low[i : i + WINDOW] in lowered for i in range(len(low) - WINDOW + 1)):
            return True
        for card in _cards(low):  # a deck: one card quoted alone
            if re.search(rf"(?<![0-9a-z]){re.escape(card)}(?![0-9a-z])", lowered):
                return True
    return False


HIDDEN = "is malformed (the parser's detail is not shown: it would quote a secret of it)"


def scrub(text: str, url: str, hidden: str = HIDDEN) -> str:
    """``text`` (a message about ``url``) with the URL shown redacted, or ``hidden`` if any secret of it
    would still appear."""
    shown = text.replace(url, shown_url(url)) if url else text
    return hidden if _leaks(shown, secrets_of(url)) else shown
