"""Schemathesis hooks for bench/schemathesis.sh.

A revoked token stays readable (the contract keeps history): `filter_failure` drops the one
use-after-free finding on `GET /v1/tokens/{id}`, and nothing else.

Two rules JSON Schema cannot state, which the served document says in words; for the run, each
is narrowed to values that always keep it, so that valid cases are valid. Nothing else of the
document is changed:
- `expires_at` (POST /v1/tokens, POST /v1/keys) must lie in the future: datetimes from the year
  2100 on.
- `previous_secret_expires_in` (POST /v1/tokens/{id}/rotate) is at most 24 hours in all: the
  document's grammar with hours below 24 and minutes and seconds below 60 after them, minutes
  alone below 1,440, seconds alone below 10,000.
"""

import schemathesis

FUTURE = (
    r"^(2[1-9][0-9]{2}|[3-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])"
    r"T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?(Z|[+-](0[0-9]|1[0-3]):[0-5][0-9])$"
)


WITHIN_A_DAY = (
    r"^(?:0|(?:1?[0-9]|2[0-3])h(?:[1-5]?[0-9]m)?(?:[1-5]?[0-9]s)?"
    r"|(?:1?[0-9]{1,3}|1[0-3][0-9]{2}|14[0-3][0-9])m(?:[1-5]?[0-9]s)?|[0-9]{1,4}s)$"
)


@schemathesis.hook
def before_load_schema(context, raw_schema):
    schemas = raw_schema["components"]["schemas"]
    for body in ("CreateToken", "CreateKey"):
        schemas[body]["properties"]["expires_at"]["pattern"] = FUTURE
    overlap = schemas["RotateToken"]["properties"]["previous_secret_expires_in"]
    for form in overlap["oneOf"]:
        if form.get("type") == "string":
            form["pattern"] = WITHIN_A_DAY


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
