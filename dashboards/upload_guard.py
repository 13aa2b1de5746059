"""The page's side of uploads: a file over the limit is refused before the browser reads it.

dcc.Upload reads a dropped or chosen file whole into a base64 data URL before anything is sent;
a 210-300 MB file crashed the tab there. With `max_size` set, its dropzone refuses a larger file
unread, and the listeners installed here say why in the page's message line. They also show the
server's refusal of an upload while two others are read (dashboards/upload_store.limit_uploads),
which Dash itself would only log to the console.
"""

from __future__ import annotations

from dash import Dash, Input, Output

from dashboards.upload_store import REFUSED_HEADER

GUARD = """function (_id) {
    const limit = %(limit)d;
    // Through Dash's own store, so the next callback that writes the message line replaces this text.
    const say = (text) => window.dash_clientside.set_props('message', {children: text});
    const tooLarge = (files) => {
        for (const file of files || []) {
            if (file.size > limit) {
                say('\\u26a0 ' + file.name + ' is ' + (file.size / 1e6).toFixed(1) + ' MB; the upload limit is '
                    + (limit / 1e6).toFixed(0) + ' MB (irtools serve --max-upload-mb). '
                    + 'Put large files in the served directory instead.');
            }
        }
    };
    if (!window.irtoolsUploadGuard) {
        window.irtoolsUploadGuard = true;
        // Capture phase: this runs before the dropzone's own handlers (which then refuse the file unread).
        document.addEventListener('change', (e) => {
            if (e.target.closest && e.target.closest('#upload')) { tooLarge(e.target.files); }
        }, true);
        document.addEventListener('drop', (e) => {
            if (e.target.closest && e.target.closest('#upload') && e.dataTransfer) { tooLarge(e.dataTransfer.files); }
        }, true);
        const fetch = window.fetch;
        window.fetch = function (...args) {
            return fetch.apply(this, args).then((response) => {
                if (response.headers.get('%(header)s')) { response.clone().text().then((t) => say('\\u26a0 ' + t)); }
                return response;
            });
        };
    }
    return limit;
}"""


def register_upload_guard(app: Dash, max_upload_bytes: int) -> None:
    """Give the page's upload its size limit (checked before reading) and the listeners that explain refusals."""
    app.clientside_callback(  # type: ignore[no-untyped-call]
        GUARD % {"limit": max_upload_bytes, "header": REFUSED_HEADER},
        Output("upload", "max_size"),
        Input("upload", "id"),
    )
