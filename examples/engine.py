#!/usr/bin/env python3
"""A complete Arbiter engine in one file: standard library only, every Othello variant.

The connector runs it once per leg and keeps it running:

    arbiter bot --engine 'python3 examples/engine.py'

It reads one JSON request per line (the position, the legal moves, the clocks) and writes one
JSON answer per line, {"move": <square>}, flushing each. It never reads ahead: the next
request only comes after this answer.

The move choice is a one-ply greedy search: the legal move that flips the most discs (the
fewest in anti-Othello), corners first. Replace choose_move with your own engine.
"""
import json
import sys
import traceback
from pathlib import Path

LOG = Path(__file__).with_name("engine.log")
DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def flips(position, square):
    """How many discs playing `square` turns over (blocked squares stop a line)."""
    size = position["board_size"]
    board = position["board"]
    blocked = set(position["blocked_squares"])
    me = position["color"]
    row, col = divmod(square, size)
    total = 0
    for dr, dc in DIRECTIONS:
        r, c, run = row + dr, col + dc, 0
        while 0 <= r < size and 0 <= c < size:
            cell = r * size + c
            if cell in blocked or board[cell] == 0:
                run = 0
                break
            if board[cell] == me:
                break
            run += 1
            r, c = r + dr, c + dc
        else:
            run = 0
        total += run
    return total


def choose_move(position):
    """The engine: return a square number from legal_moves, or -1 to pass."""
    legal = position["legal_moves"]
    if not legal:
        return -1
    size = position["board_size"]
    corners = {0, size - 1, size * (size - 1), size * size - 1}
    sign = -1 if position["game_mode"] == "anti" else 1
    return max(legal, key=lambda sq: (sq in corners, sign * flips(position, sq), -sq))


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        position = json.loads(line)
        legal = position["legal_moves"]
        try:
            move = choose_move(position)
        except Exception:
            # The engine failed: note why in engine.log and play the first legal square.
            with open(LOG, "a") as log:
                log.write(traceback.format_exc())
            move = legal[0] if legal else -1
        # stdout carries answers only; anything else goes to stderr or the log.
        print(json.dumps({"move": move}), flush=True)


if __name__ == "__main__":
    main()
