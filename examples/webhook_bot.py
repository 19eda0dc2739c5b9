#!/usr/bin/env python3
"""A bot that answers Arbiter over HTTP: Arbiter POSTs each decision here, signed, and
plays the action in the answer. Standard library only.

    ARBITER_WEBHOOK_SECRET=whsec_... python3 webhook_bot.py 8000

Give the secret with ARBITER_WEBHOOK_SECRET, or, if it is not set, as the first line on
standard input (after the port is printed), so a script can start the bot, register its URL
and hand it the secret it was shown. Every request's signature and timestamp are checked
before anything else is read; a request that fails is answered 401 and ignored.
"""

import hashlib
import hmac
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

REPLAY_WINDOW_S = 300
SECRET = b""


def signature_ok(timestamp: str, body: bytes, signature: str) -> bool:
    """The check docs/serverless.md describes: HMAC-SHA256 over "{timestamp}.{body}"."""
    try:
        sent_at = int(timestamp)
    except ValueError:
        return False
    if abs(time.time() - sent_at) > REPLAY_WINDOW_S:
        return False
    expected = hmac.new(SECRET, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest("v1=" + expected, signature)


def choose(request: dict):
    """The engine: the first legal action. Othello's requests list `legal_moves` (an empty
    list when the only move is the pass, -1); every other game's list `legal_actions`."""
    legal = request.get("legal_moves", request.get("legal_actions"))
    return legal[0] if legal else -1


class Bot(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(min(length, 1 << 20))
        if not signature_ok(
            self.headers.get("X-Arbiter-Timestamp", ""),
            body,
            self.headers.get("X-Arbiter-Signature", ""),
        ):
            self.send_response(401)
            self.end_headers()
            return
        decision = json.loads(body)
        answer = json.dumps({"action": choose(decision["request"])}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        print("answered", decision["match_id"], decision["leg"], flush=True)

    def log_message(self, *args):
        pass


def main():
    global SECRET
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
    server = HTTPServer(("127.0.0.1", port), Bot)
    print("listening on", server.server_address[1], flush=True)
    secret = os.environ.get("ARBITER_WEBHOOK_SECRET") or sys.stdin.readline().strip()
    SECRET = secret.encode()
    server.serve_forever()


if __name__ == "__main__":
    main()
