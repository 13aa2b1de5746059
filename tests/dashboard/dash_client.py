"""Call the dashboard's callbacks over HTTP as the browser does (POST /_dash-update-component).

The request is built from the app's own /_dash-dependencies, so a test names a callback by its
first output and gives the values it cares about; everything else is sent as null.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
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


def callback_body(
    dependencies: list[dict[str, Any]], first_output: str, inputs: Values, state: Values | None = None
) -> dict[str, Any]:
    """The request body of the callback whose first output is `first_output` ("status.children")."""
    dep = next(d for d in dependencies if _first(d["output"]) == first_output)
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


class DashClient:
    """Calls a Dash app's callbacks through a Flask test client, or over HTTP at a base URL."""

    def __init__(self, client: FlaskClient | str, timeout: float = 600) -> None:
        self.client = client
        self.timeout = timeout
        status, self.dependencies = self._request("GET", "/_dash-dependencies")
        assert status == 200, status

    def body(self, first_output: str, inputs: Values, state: Values | None = None) -> dict[str, Any]:
        return callback_body(self.dependencies, first_output, inputs, state)

    def call(self, first_output: str, inputs: Values, state: Values | None = None) -> Any:
        """The callback's response: a dict of outputs by component id (None for 204 No Content)."""
        status, answer = self._request(
            "POST", "/_dash-update-component", self.body(first_output, inputs, state)
        )
        if status == 204:
            return None
        assert status == 200, (status, str(answer)[:500])
        return answer["response"]

    def open_file(self, key: str, model: str = "dependency") -> dict[str, Any]:
        """What the page asks for when a file is selected: header, timeline, one core's maps, findings."""
        loaded = self.call("layers.options", {"shown.data": key})
        core = loaded["core"]["value"]
        return {
            "header": self.call("status.children", {"shown.data": key, "model.value": model}),
            "timeline": self.call(
                "timeline.figure", {"shown.data": key, "model.value": model, "arrows.value": "auto"}
            ),
            "maps": self.call(
                "l2-map.figure",
                {"shown.data": key, "core.value": core, "model.value": model, "map-axis.value": "cycles"},
            ),
            "findings": self.call("findings-summary.children", {"shown.data": key}),
        }

    def _request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        if not isinstance(self.client, str):
            response = self.client.open(path, method=method, data=data, content_type="application/json")
            return response.status_code, response.get_json(silent=True)
        request = urllib.request.Request(
            self.client.rstrip("/") + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                text = response.read()
                return int(response.status), json.loads(text) if text else None
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")
