"""Schemathesis hooks for bench/schemathesis.sh.

A revoked token stays readable (the contract keeps history): `filter_failure` drops the one
use-after-free finding on `GET /v1/tokens/{id}`, and nothing else.

`expires_at` (POST /v1/tokens) must lie in the future: a rule JSON Schema cannot state, so the
served document says it in words and in `format: date-time`. For the run, this narrows the schema
to datetimes from the year 2100 on, which are always in the future, so that valid cases are valid.
Nothing else of the document is changed.
"""

import schemathesis

FUTURE = (
    r"^(2[1-9][0-9]{2}|[3-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9])$"
)


@schemathesis.hook
def before_load_schema(context, raw_schema):
    create = raw_schema["components"]["schemas"]["CreateToken"]["properties"]["expires_at"]
    create["pattern"] = FUTURE


@schemathesis.hook
def filter_failure(context, failure, case, response):
    revoked_token_read = (
        type(failure).__name__ == "UseAfterFree"
        and case.operation.method.upper() == "GET"
        and case.operation.path == "/v1/tokens/{id}"
        and response.status_code == 200
        and response.json().get("status") == "revoked"
    )
    return not revoked_token_read
