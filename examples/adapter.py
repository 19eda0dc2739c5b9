#!/usr/bin/env python3
"""An adapter for an engine that is an executable program.

Use it when your engine is a program that reads one position and prints one move, in a format
of its own. The connector runs this adapter once per leg and sends it one JSON request per
line; for each, the adapter runs the engine, translates both ways, and prints one JSON answer.

    arbiter bot --engine 'python3 examples/adapter.py'

This example assumes an engine that reads a line "<board> <side> <milliseconds>" (one
character per square from a1 row by row: . empty, X black, O white; side X or O) and prints a
coordinate such as D3. Change the three places marked EDIT for yours.
"""
import json
import subprocess
import sys
import traceback
from pathlib import Path

# EDIT 1: your engine program, kept beside this file.
ENGINE = Path(__file__).with_name("my_engine.exe" if sys.platform == "win32" else "my_engine")
LOG = Path(__file__).with_name("adapter.log")


def think_ms(position):
    """Time for this move: the remaining clock shared over my remaining moves."""
    my_moves_left = position["board"].count(0) // 2 + 1
    share = position["remaining_ms"] / my_moves_left
    # budget_ms is how long the connector waits for this answer: stay well inside it.
    return int(min(share, position["budget_ms"]) * 0.8)


def choose_move(position):
    if not position["legal_moves"]:
        return -1
    # EDIT 2: the line your engine reads.
    board = "".join(".XO"[cell] for cell in position["board"])
    side = "X" if position["color"] == 1 else "O"
    reply = subprocess.run(
        [str(ENGINE)],
        input=f"{board} {side} {think_ms(position)}\n",
        text=True,
        capture_output=True,
        check=True,
        timeout=position["budget_ms"] / 1000 * 0.9,
    )
    # EDIT 3: the move in your engine's answer (a square number or a coordinate like "d3").
    return reply.stdout.strip()


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        position = json.loads(line)
        legal = position["legal_moves"]
        try:
            move = choose_move(position)
        except Exception:
            # The engine failed: note why in adapter.log and play the first legal square.
            with open(LOG, "a") as log:
                log.write(traceback.format_exc())
            move = legal[0] if legal else -1
        print(json.dumps({"move": move}), flush=True)


if __name__ == "__main__":
    main()
