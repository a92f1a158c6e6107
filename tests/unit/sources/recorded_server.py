"""A real HTTP server on 127.0.0.1 that answers with recorded response bodies.

``RecordedServer(routes)`` serves on a free port in a thread; ``routes(path, query)`` returns
``(status, headers, body)`` or the string ``"drop"`` (close the socket without answering, as a
dropped connection). Every request's path and parsed query are kept in ``requests``.

A body may also be an iterable of byte chunks, written and flushed one at a time (the iterable may
sleep between them: a server that drips); without a ``Content-Length`` header it is sent with
chunked transfer encoding (a generator that never ends is a body that never ends). The bytes
written are counted in ``sent``; a client that hangs up ends the answer quietly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import parse_qs, urlsplit

Response = tuple[int, dict[str, str], bytes | Iterable[bytes]] | str
Route = Callable[[str, dict[str, str]], Response]


class RecordedServer:
    def __init__(self, route: Route) -> None:
        self.route = route
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.sent = 0
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
                if isinstance(body, bytes):
                    headers = {"Content-Length": str(len(body)), **headers}
                    body = [body]
                chunked = "Content-Length" not in headers
                if chunked:  # chunked transfer encoding is HTTP/1.1's
                    self.protocol_version = "HTTP/1.1"
                    headers = {**headers, "Transfer-Encoding": "chunked", "Connection": "close"}
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                try:
                    for chunk in body:
                        if chunked:
                            chunk = b"%x\r\n%s\r\n" % (len(chunk), chunk)
                        self.wfile.write(chunk)
                        self.wfile.flush()
                        server.sent += len(chunk)
                    if chunked:
                        self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True  # the client gave up: so do we

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
