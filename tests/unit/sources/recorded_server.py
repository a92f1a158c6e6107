"""A real HTTP server on 127.0.0.1 that answers with recorded response bodies.

``RecordedServer(routes)`` serves on a free port in a thread; ``routes(path, query)`` returns
``(status, headers, body)`` or the string ``"drop"`` (close the socket without answering, as a
dropped connection). Every request's path and parsed query are kept in ``requests``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

Response = tuple[int, dict[str, str], bytes] | str
Route = Callable[[str, dict[str, str]], Response]


class RecordedServer:
    def __init__(self, route: Route) -> None:
        self.route = route
        self.requests: list[tuple[str, dict[str, str]]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                server.requests.append((parts.path, query))
                answer = server.route(parts.path, query)
                if answer == "drop":
                    self.connection.shutdown(2)
                    self.close_connection = True
                    return
                assert not isinstance(answer, str)
                status, headers, body = answer
                self.send_response(status)
                for key, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> RecordedServer:
        self.thread.start()
        return self

    def __exit__(
        self, exc: type[BaseException] | None, val: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
