"""An NBoard engine for the connector's tests, answering in the spellings real engines use.

It plays the legal move that flips the most discs. Like NTest it prints a banner before the
handshake and status lines around its replies; its `===` replies cycle through Edax's
lower-case space form, NTest's slash form, and a bare upper-case move.
"""
import sys

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


def main():
    say("Test NBoard engine 1.0 (stray banner)")
    board, me, answers = None, None, 0
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "set" and len(words) > 2 and words[1] == "depth":
            say("set myname TestNBoard" + words[2])
        elif words[0] == "set" and len(words) > 1 and words[1] == "game":
            record = line.split("BO[", 1)[1].split("]", 1)[0].split()
            assert record[0] == "8", record
            board, me = "".join(record[1:-1]), record[-1]
        elif words[0] == "ping":
            say("status thinking")
            say("pong " + words[1])
        elif words[0] == "go":
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
            return


main()
