#!/usr/bin/env python3
"""A small Dice Chess engine for Arbiter's generic engine protocol (chess too).

The connector runs it once per leg and keeps it running:

    arbiter bot --engine 'python3 examples/dice_chess_engine.py' --games chess:dice

It reads one JSON request per line and writes one JSON answer per line, flushing each:

    request: {"protocol":1,"game":"chess","variant":"dice","seat":0,
              "view":{"fen":"...","dfen":"... PNR","dice":{"unused":[1,2,4],...},...},
              "legal_actions":["a2a3","a2a4",...],"remaining_ms":59000,...}
    answer:  {"action": "a2a3"}

In Dice Chess a turn is up to three micro-moves, one per die, and each is its own decision:
legal_actions lists only the micro-moves that keep the turn legal (the server applies the
rule that as many dice as possible must be used), so any of them is safe to play.
docs/chess.md describes the view, and docs/engine-protocol.md every field of a request.

The strategy is greedy: take the king if any legal micro-move can; otherwise make the
capture that wins the most material, preferring to capture with the cheapest piece; otherwise
advance a pawn or develop a piece toward the centre. Ties go to the first move listed, so the
engine plays the same way every time.
"""
import json
import sys

VALUES = {"p": 1, "n": 3, "b": 3, "r": 5, "q": 9, "k": 100}


def board_of(fen):
    """The squares ("e4") of a FEN's placement, each mapped to its piece letter."""
    board = {}
    for rank_index, row in enumerate(fen.split()[0].split("/")):
        file_index = 0
        for char in row:
            if char.isdigit():
                file_index += int(char)
            else:
                board["abcdefgh"[file_index] + str(8 - rank_index)] = char
                file_index += 1
    return board


def score(board, move):
    """How good a move looks at a glance: captures by the value taken, less a little for the
    value risked; quiet moves by how central they end."""
    source, target = move[:2], move[2:4]
    mover = board.get(source, "p").lower()
    taken = board.get(target)
    if taken is not None and taken.lower() == "k":
        return 10_000
    if taken is not None:
        return 100 * VALUES[taken.lower()] - VALUES[mover]
    if len(move) == 5:
        return 80 * VALUES.get(move[4], 0)
    file_distance = abs("abcdefgh".index(target[0]) - 3.5)
    rank_distance = abs(int(target[1]) - 4.5)
    return -(file_distance + rank_distance)


def choose(request):
    """A move from legal_actions: the best by `score`, the first on a tie."""
    legal = request.get("legal_actions") or []
    moves = [action for action in legal if isinstance(action, str)]
    if not moves:
        return legal[0] if legal else None
    try:
        board = board_of(request["view"]["fen"])
    except (KeyError, TypeError, AttributeError, ValueError, IndexError):
        return moves[0]  # A view this engine does not read: any listed move is legal.
    return max(moves, key=lambda move: score(board, move))


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        action = choose(json.loads(line))
        # stdout carries answers only; anything else goes to stderr.
        print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
