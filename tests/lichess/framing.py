#!/usr/bin/env python3
"""Checks the transport rules of Arbiter's Lichess-compatible Bot API byte by byte.

Lichess clients break on details that a library hides: how a stream is framed, its content
type, compression, keep-alive lines and when it closes, what a POST answers, and refusals.
This client uses the standard library only and reads both streams over raw sockets, so that
it sees each HTTP chunk as the server framed it.

The server is the one at ARBITER_BASE (its root, e.g. http://127.0.0.1:8080), and ARBITER_ADMIN
is its administrator token, used only to register two bots. The script prints a line per step
and exits with status 1 and a message on the first failure, and within a time limit
(ARBITER_LICHESS_LIMIT_S, 60 s by default) in any case. It takes about ten seconds, most of it
an idle wait for keep-alive lines.
"""

import http.client
import json
import os
import secrets
import signal
import socket
import sys
import threading
import time
import traceback
import urllib.parse

BASE = os.environ.get("ARBITER_BASE", "").rstrip("/")
ADMIN = os.environ.get("ARBITER_ADMIN", "")
LIMIT_S = int(os.environ.get("ARBITER_LICHESS_LIMIT_S", "60"))
PATIENCE_S = 15.0
# The longest two lines of a stream may be apart (the rule clients rely on), and how long the
# streams are left idle to see it kept.
KEEPALIVE_S = 7.0
IDLE_S = 8.0
SUFFIX = secrets.token_hex(3)
NDJSON = "application/x-ndjson"


class Failure(Exception):
    """A check that did not hold."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def log(text):
    print(text, flush=True)


def on_time_limit(_signal, _frame):
    # Reader threads block in socket reads, so the process ends at once instead of unwinding.
    log(f"FAIL: the run took longer than its limit of {LIMIT_S} s")
    sys.stdout.flush()
    os._exit(1)


def address():
    parts = urllib.parse.urlsplit(BASE)
    check(parts.scheme == "http" and parts.hostname,
          f"ARBITER_BASE must be http://host:port: {BASE}")
    return parts.hostname, parts.port or 80


class Api:
    """One keep-alive connection for ordinary requests, as a client library holds one."""

    def __init__(self):
        host, port = address()
        self.connection = http.client.HTTPConnection(host, port, timeout=PATIENCE_S)

    def call(self, method, path, token, body=None, content_type=None):
        """Sends a request; its status, headers (lower-case names) and parsed JSON body."""
        headers = {"Authorization": f"Bearer {token}"}
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            content_type = content_type or "application/json"
        if content_type:
            headers["Content-Type"] = content_type
        self.connection.request(method, path, body=body, headers=headers)
        response = self.connection.getresponse()
        raw = response.read()
        heads = {k.lower(): v for k, v in response.getheaders()}
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            raise Failure(f"{method} {path}: {response.status} with a body that is not JSON: "
                          f"{raw!r}")
        return response.status, heads, parsed

    def ok(self, method, path, token, body=None, content_type=None):
        """A call that must answer 200 with a JSON body; the body."""
        status, _, parsed = self.call(method, path, token, body, content_type)
        check(status == 200, f"{method} {path}: {status} {parsed}")
        return parsed

    def posted(self, path, token, body=None, content_type=None):
        """A POST that must answer exactly `{"ok":true}`, as clients parse every answer."""
        parsed = self.ok("POST", path, token, body, content_type)
        check(parsed == {"ok": True}, f"POST {path} answered {parsed}, not {{\"ok\":true}}")

    def refused(self, path, token, what):
        """A POST that must be refused with a 4xx (never a 429) and `{"error": …}`."""
        status, _, parsed = self.call("POST", path, token)
        check(status != 429, f"{what}: 429, which makes clients stop moving for a minute")
        check(400 <= status < 500, f"{what}: {status}, not a 4xx: {parsed}")
        check(isinstance(parsed, dict) and isinstance(parsed.get("error"), str),
              f"{what}: the body is not {{\"error\": …}}: {parsed}")
        return status


class RawStream(threading.Thread):
    """An NDJSON stream read over a raw socket: its status, headers, and each chunk's data
    with the time it arrived; `ended` once the server sent the last chunk."""

    def __init__(self, name, path, token):
        super().__init__(daemon=True)
        self.name = name
        host, port = address()
        self.socket = socket.create_connection((host, port), timeout=PATIENCE_S)
        # The headers a Lichess client library sends: JSON asked for, compression offered.
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Authorization: Bearer {token}\r\nAccept: application/json\r\n"
            "Accept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n\r\n"
        )
        self.socket.sendall(request.encode())
        # The reads wait as long as the run may last: an idle stream is what is checked.
        self.socket.settimeout(LIMIT_S)
        self.reader = self.socket.makefile("rb")
        status_line = self.reader.readline().decode("latin-1").strip()
        self.opened = time.monotonic()
        self.status = int(status_line.split()[1]) if status_line.startswith("HTTP/1.1 ") else 0
        self.headers = {}
        while True:
            header = self.reader.readline().decode("latin-1").strip()
            if not header:
                break
            name, _, value = header.partition(":")
            self.headers[name.strip().lower()] = value.strip()
        self.chunks = []
        self.ended = False
        self.error = None
        self.changed = threading.Condition()
        self.taken = 0

    def check_headers(self):
        check(self.status == 200, f"{self.name}: status {self.status}")
        check(self.headers.get("transfer-encoding", "").lower() == "chunked",
              f"{self.name}: not Transfer-Encoding: chunked: {self.headers}")
        check(self.headers.get("content-type", "").split(";")[0].strip() == NDJSON,
              f"{self.name}: Content-Type is {self.headers.get('content-type')!r} for a client "
              f"that sent Accept: application/json")
        check("content-encoding" not in self.headers,
              f"{self.name}: compressed ({self.headers.get('content-encoding')}) though streamed")
        check("content-length" not in self.headers, f"{self.name}: has a Content-Length")

    def run(self):
        try:
            while True:
                size_line = self.reader.readline()
                check(size_line.endswith(b"\r\n"), f"{self.name}: a cut chunk header {size_line!r}")
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    # The last chunk, then the (empty) trailer section.
                    while self.reader.readline() not in (b"\r\n", b""):
                        pass
                    break
                data = self.reader.read(size)
                check(len(data) == size and self.reader.read(2) == b"\r\n",
                      f"{self.name}: a chunk cut short")
                with self.changed:
                    self.chunks.append((time.monotonic(), data))
                    self.changed.notify_all()
        except Exception as error:  # The waiting step reports it.
            self.error = error
        with self.changed:
            self.ended = True
            self.changed.notify_all()

    def next_chunk(self, skip_keepalives=True):
        """The next chunk not read yet (keep-alives passed over unless asked for)."""
        deadline = time.monotonic() + PATIENCE_S
        with self.changed:
            while True:
                while self.taken < len(self.chunks):
                    data = self.chunks[self.taken][1]
                    self.taken += 1
                    if data != b"\n" or not skip_keepalives:
                        return data
                if self.error is not None:
                    raise Failure(f"{self.name}: {self.error!r}")
                check(not self.ended, f"{self.name}: the stream ended early")
                left = deadline - time.monotonic()
                check(left > 0, f"{self.name}: no line for {PATIENCE_S} s")
                self.changed.wait(left)

    def next_line(self, kind=None):
        """The next JSON line (of type `kind`, passing over others)."""
        while True:
            value = json.loads(self.next_chunk())
            if kind is None or value.get("type") == kind:
                return value

    def wait_end(self):
        """Waits for the last chunk; everything not read yet, as JSON lines."""
        deadline = time.monotonic() + PATIENCE_S
        with self.changed:
            while not self.ended:
                left = deadline - time.monotonic()
                check(left > 0, f"{self.name}: the stream was not closed")
                self.changed.wait(left)
        if self.error is not None:
            raise Failure(f"{self.name}: {self.error!r}")
        rest = [data for _, data in self.chunks[self.taken:] if data != b"\n"]
        self.taken = len(self.chunks)
        return [json.loads(data) for data in rest]

    def check_one_line_per_chunk(self):
        for _, data in self.chunks:
            check(data.endswith(b"\n") and data.count(b"\n") == 1,
                  f"{self.name}: a chunk that is not exactly one line: {data!r}")

    def check_keepalives(self, since, until):
        """No gap longer than KEEPALIVE_S between lines within [since, until], counting from
        the last line before it, and at least one empty line in it."""
        with self.changed:
            times = [self.opened] + [t for t, _ in self.chunks if t <= until]
            empty = [t for t, data in self.chunks if data == b"\n" and since <= t <= until]
        before = max(t for t in times if t <= since)
        inside = [before] + [t for t in times if since < t] + [until]
        widest = max(b - a for a, b in zip(inside, inside[1:]))
        check(widest <= KEEPALIVE_S, f"{self.name}: {widest:.1f} s without a line")
        check(empty, f"{self.name}: no keep-alive line in {until - since:.1f} idle seconds")
        return widest

    def close(self):
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.socket.close()


def step(title, action):
    started = time.monotonic()
    result = action()
    log(f"ok   {title} ({time.monotonic() - started:.1f} s){': ' + result if result else ''}")


def main():
    check(BASE and ADMIN, "set ARBITER_BASE (the server's root URL) and ARBITER_ADMIN")
    signal.signal(signal.SIGALRM, on_time_limit)
    signal.alarm(LIMIT_S)
    began = time.monotonic()
    api = Api()
    log(f"framing checks against {BASE}")

    def register(name):
        name = f"{name}-{SUFFIX}"
        body = {"name": name, "supported_variants": ["chess"]}
        status, _, created = api.call("POST", "/api/v1/admin/bots", ADMIN, body)
        check(status == 201, f"registering {name}: {status} {created}")
        return name, created["token"]

    alpha, beta = register("Alpha"), register("Beta")
    streams = {}
    game = {}

    def event_streams():
        for name, token in (alpha, beta):
            stream = RawStream(f"{name}'s event stream", "/api/stream/event", token)
            stream.check_headers()
            stream.start()
            streams[name] = stream
        return "chunked, NDJSON despite Accept: application/json, no gzip despite Accept-Encoding"

    def challenge():
        body = {"rated": False, "clock.limit": 180, "clock.increment": 0, "days": None,
                "color": "white", "variant": None, "fen": None}
        created = api.ok("POST", f"/api/challenge/{beta[0]}", alpha[1], body)
        game_id = created["id"]
        offered = streams[beta[0]].next_line("challenge")
        check(offered["challenge"]["id"] == game_id, f"the challenge event: {offered}")
        api.posted(f"/api/challenge/{game_id}/accept", beta[1])
        for name, _ in (alpha, beta):
            started = streams[name].next_line("gameStart")
            check(started["game"]["gameId"] == game_id, f"{name}'s gameStart: {started}")
        game["id"] = game_id
        return f"game {game_id}, accept answered {{\"ok\":true}}"

    def game_streams():
        for name, token in (alpha, beta):
            stream = RawStream(f"{name}'s game stream", f"/api/bot/game/stream/{game['id']}", token)
            stream.check_headers()
            stream.start()
            streams[f"game {name}"] = stream
            first = stream.next_chunk(skip_keepalives=False)
            check(first != b"\n" and json.loads(first)["type"] == "gameFull",
                  f"{stream.name}: the first line is not gameFull: {first!r}")
        return "gameFull first on both"

    def idle():
        # Nothing happens on any of the four streams for a while: each must still send lines.
        since = time.monotonic()
        time.sleep(IDLE_S)
        until = time.monotonic()
        widest = max(stream.check_keepalives(since, until) for stream in streams.values())
        return f"widest gap {widest:.1f} s over {len(streams)} streams idle for {IDLE_S:.0f} s"

    def moves_and_refusals():
        game_id = game["id"]
        white_stream = streams[f"game {alpha[0]}"]
        api.posted(f"/api/bot/game/{game_id}/move/e2e4", alpha[1])
        check(white_stream.next_line("gameState")["moves"] == "e2e4", "the state after e2e4")
        api.refused(f"/api/bot/game/{game_id}/move/d2d4", alpha[1], "a move when not one's turn")
        api.refused(f"/api/bot/game/{game_id}/move/e7e4", beta[1], "an illegal move")
        api.refused(f"/api/bot/game/{game_id}/move/zz", beta[1], "a move that is no move")
        # A client in trouble may send many bad moves quickly: none may be answered 429.
        statuses = {api.refused(f"/api/bot/game/{game_id}/move/e7e4", beta[1], "a burst move")
                    for _ in range(50)}
        check(statuses == {400}, f"the burst's statuses: {statuses}")
        api.posted(f"/api/bot/game/{game_id}/move/e7e5?offeringDraw=false", beta[1])
        state = white_stream.next_line("gameState")
        check(state["moves"] == "e2e4 e7e5", f"the refused moves changed the game: {state}")
        return "refusals 400 with {\"error\":…}, 50 refused moves in a row without a 429"

    def chat():
        game_id = game["id"]
        api.posted(f"/api/bot/game/{game_id}/chat", beta[1], "room=player&text=hello+there",
                   "application/x-www-form-urlencoded")
        api.posted(f"/api/bot/game/{game_id}/chat", alpha[1], {"room": "player", "text": "hi"})
        for name, _ in (alpha, beta):
            stream = streams[f"game {name}"]
            lines = [stream.next_line("chatLine") for _ in range(2)]
            said = {(line["username"], line["room"], line["text"]) for line in lines}
            check(said == {(beta[0], "player", "hello there"), (alpha[0], "player", "hi")},
                  f"{stream.name}: the chat lines {lines}")
        return "form and JSON bodies, chatLine on both game streams"

    def resign():
        game_id = game["id"]
        api.posted(f"/api/bot/game/{game_id}/resign", alpha[1])
        for name, _ in (alpha, beta):
            stream = streams[f"game {name}"]
            rest = stream.wait_end()
            states = [line for line in rest if line.get("type") == "gameState"]
            check(states and states[-1]["status"] == "resign"
                  and states[-1].get("winner") == "black",
                  f"{stream.name}: the lines before its end: {rest}")
            check(rest[-1] is states[-1], f"{stream.name}: a line after the final state: {rest}")
            finish = streams[name].next_line("gameFinish")
            check(finish["game"]["id"] == game_id, f"{name}'s gameFinish: {finish}")
        again = RawStream("a finished game's stream", f"/api/bot/game/stream/{game_id}", alpha[1])
        again.check_headers()
        again.start()
        lines = again.wait_end()
        check(len(lines) == 1 and lines[0]["type"] == "gameFull"
              and lines[0]["state"]["status"] == "resign",
              f"{again.name}: not gameFull alone: {lines}")
        streams["finished"] = again
        return "final state, then the stream closed; a finished game's stream is gameFull alone"

    step("event streams: headers", event_streams)
    step("challenge created and accepted", challenge)
    step("game streams: headers and first line", game_streams)
    step("keep-alive lines on idle streams", idle)
    step("moves: {\"ok\":true}, refusals and a burst", moves_and_refusals)
    step("chat", chat)
    step("resignation ends the game streams", resign)

    def framing():
        count = 0
        for stream in streams.values():
            stream.check_one_line_per_chunk()
            count += len(stream.chunks)
        return f"{count} chunks"

    step("every chunk of every stream is exactly one line", framing)
    for stream in streams.values():
        stream.close()
    log(f"PASS: all framing checks in {time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        log(f"FAIL: {failure}")
        sys.exit(1)
    except Exception:
        traceback.print_exc(file=sys.stdout)
        log("FAIL: an unexpected error (above)")
        sys.exit(1)
