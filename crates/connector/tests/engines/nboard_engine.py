#!/usr/bin/env python3
"""An NBoard engine for the connector's tests, answering in the spellings real engines use.

It plays the legal move that flips the most discs. Like NTest it prints a banner before the
handshake and status lines around its replies; its `===` replies cycle through Edax's
lower-case space form, NTest's slash form, and a bare upper-case move.

Started with `-nboard`, as the connector starts Edax, it behaves as Edax does in that mode as far
as time goes. It ignores the clock in `set game` and searches to its `set depth`: a search takes
2^depth milliseconds (so depth 60 never ends), times the number in the file `slow` in its working
folder if there is one, and each search's depth is appended to the file `depths` there. Without
`data/book.dat` in its working folder it starts slowly, taking the seconds written in the file
`startup` there, as Edax does while it builds an opening book; it writes `data/book.dat` when it
is told to quit, as Edax saves its book.
"""
import os
import sys
import time

DIRECTIONS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
SPELLINGS = ["=== {m} -1.00 0.0", "=== {M}/-1.16/0.00", "==={M}"]


def say(line):
    print(line, flush=True)


def flips(board, me, square):
    row, col = divmod(square, 8)
    total = 0
    for dr, dc in DIRECTIONS:
        r, c, run = row + dr, col + dc, 0
        while 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] not in ("-", me):
            r, c, run = r + dr, c + dc, run + 1
        if run and 0 <= r < 8 and 0 <= c < 8 and board[r * 8 + c] == me:
            total += run
    return total


def number_in(path, default):
    try:
        with open(path) as file:
            return float(file.read())
    except OSError:
        return default


def main():
    edax = "-nboard" in sys.argv
    if edax and not os.path.exists("data/book.dat"):
        time.sleep(number_in("startup", 0))
    say("Test NBoard engine 1.0 (stray banner)")
    board, me, answers, depth = None, None, 0, None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "set" and len(words) > 2 and words[1] == "depth":
            depth = int(words[2])
            say("set myname TestNBoard" + words[2])
        elif words[0] == "set" and len(words) > 1 and words[1] == "game":
            record = line.split("BO[", 1)[1].split("]", 1)[0].split()
            assert record[0] == "8", record
            board, me = "".join(record[1:-1]), record[-1]
        elif words[0] == "ping":
            say("status thinking")
            say("pong " + words[1])
        elif words[0] == "go":
            if edax:
                with open("depths", "a") as log:
                    log.write(f"{depth}\n")
                time.sleep(2 ** min(depth, 40) / 1000 * number_in("slow", 1))
            scored = [(flips(board, me, sq), -sq) for sq in range(64) if board[sq] == "-"]
            best = max((s for s in scored if s[0] > 0), default=None)
            if best is None:
                move = "PA"
            else:
                square = -best[1]
                move = "abcdefgh"[square % 8] + str(square // 8 + 1)
            say("nodestats 1234 0.01")
            say(SPELLINGS[answers % len(SPELLINGS)].format(m=move.lower(), M=move.upper()))
            answers += 1
        elif words[0] == "quit":
            if edax:
                os.makedirs("data", exist_ok=True)
                with open("data/book.dat", "w") as book:
                    book.write("book")
            return


main()
