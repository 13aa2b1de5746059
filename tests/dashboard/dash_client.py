"""Call the dashboard's callbacks over HTTP as the browser does (POST /_dash-update-component).

The request is built from the app's own /_dash-dependencies, so a test names a callback by its
first output and gives the values it cares about; everything else is sent as null.
"""

from __future__ import annotations

import json
from typing import Any

from flask.testing import FlaskClient

Values = dict[str, Any]


def _split(output: str) -> list[dict[str, str]]:
    """Dash's output string ("..a.b...c.d.." or "a.b") as [{"id", "property"}]."""
    parts = output.strip(".").split("...") if output.startswith("..") else [output]
    outputs = []
    for part in parts:
        ident, _, prop = part.rpartition(".")
        outputs.append({"id": ident, "property": prop})
    return outputs


def _first(output: str) -> str:
    """The "id.property" of a callback's first output (without allow_duplicate's "@hash")."""
    first = _split(output)[0]
    return f"{first['id']}.{first['property'].split('@')[0]}"


class DashClient:
    """A Flask test client of a Dash app, with a `call` for its callbacks."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        response = client.get("/_dash-dependencies")
        assert response.status_code == 200, response.status_code
        self.dependencies = response.get_json()

    def body(self, first_output: str, inputs: Values, state: Values | None = None) -> dict[str, Any]:
        """The request body of the callback whose first output is `first_output` ("status.children")."""
        dep = next(d for d in self.dependencies if _first(d["output"]) == first_output)
        given = {**inputs, **(state or {})}

        def values(items: list[dict[str, str]]) -> list[dict[str, Any]]:
            return [
                {"id": i["id"], "property": i["property"], "value": given.get(f"{i['id']}.{i['property']}")}
                for i in items
            ]

        outputs = [{"id": o["id"], "property": o["property"].split("@")[0]} for o in _split(dep["output"])]
        return {
            "output": dep["output"],
            # One output is sent as an object, several as a list (as the renderer does).
            "outputs": outputs if dep["output"].startswith("..") else outputs[0],
            "inputs": values(dep["inputs"]),
            "state": values(dep["state"]),
            "changedPropIds": list(inputs),
        }

    def call(self, first_output: str, inputs: Values, state: Values | None = None) -> Any:
        """The callback's response: a dict of outputs by component id (None for 204 No Content)."""
        response = self.client.post(
            "/_dash-update-component",
            data=json.dumps(self.body(first_output, inputs, state)),
            content_type="application/json",
        )
        if response.status_code == 204:
            return None
        assert response.status_code == 200, (response.status_code, response.get_data(as_text=True)[:500])
        return response.get_json()["response"]
