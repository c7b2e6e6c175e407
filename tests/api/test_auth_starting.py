"""An employee's token while ``shoed`` has not yet opened its employees store (it serves its first status first):
``503 starting``, to be retried, never ``401`` as if the token were unknown; configuration tokens as ever."""

from __future__ import annotations

import pytest

from shoe.api.auth import Authenticator
from shoe.api.errors import ApiError
from shoe.api.exchange import ANY
from shoe.service import Role

TOKENS = {"cfg-dealer-token-0123456789": Role.DEALER}


@pytest.mark.parametrize("token", ["shoe_s_" + "a" * 40, "shoe_t_" + "b" * 40])
def test_an_employee_token_waits_for_the_store_and_a_configuration_token_does_not(token: str) -> None:
    auth = Authenticator(TOKENS)
    auth.awaiting_people = True
    with pytest.raises(ApiError) as raised:
        auth.authorize(f"Bearer {token}", ANY)
    refused = raised.value
    assert (refused.code, refused.http_status, refused.headers) == ("starting", 503, {"Retry-After": "1"})
    assert auth.authorize("Bearer cfg-dealer-token-0123456789", ANY)[0] is Role.DEALER
    with pytest.raises(ApiError) as unknown:
        auth.authorize("Bearer not-a-token-of-this-table", ANY)
    assert unknown.value.code == "unauthorized"
    auth.awaiting_people = False  # a server that has no employees store at all: the token is unknown, as before
    with pytest.raises(ApiError) as without:
        auth.authorize(f"Bearer {token}", ANY)
    assert without.value.code == "unauthorized"
