"""Suite-wide isolation."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _fresh_logging() -> Iterator[None]:
    """A command under test may configure structlog and the root logger; undo it after each test."""
    yield
    structlog.reset_defaults()
    logging.getLogger().handlers.clear()
