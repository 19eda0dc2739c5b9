#!/usr/bin/env python3
"""A Gomocup (piskvork) brain for the connector's tests, standard library only.

It answers START, RESTART, BEGIN, TURN, BOARD ... DONE, INFO, ABOUT and END as the protocol
says, and, like Rapfi, `ERROR Unknown command: ...` to anything else (`--unknown`: `UNKNOWN`, as
the specification says). It writes `MESSAGE` and `DEBUG` lines before every move and ends its
lines with LF, CR LF (`--crlf`) or CR (`--cr`).

Its stones are fixed, so that a game against the practice engine (which fills the top row from
the left) is known in advance: the first free point of column 7 from row 7 down, then up, then
every other point from the bottom right. In one line, those stones never make a double three, a
double four or an overline, so they are legal for Black under Renju rules too.

Options:
  --log FILE         append "PID COMMAND" for every line read (and "PID started") to FILE
  --swap2            answer SWAP2BOARD: three stones on an empty board; after three stones the
                     answer --swap2-answer gives (two: two stones, one: one stone, swap: SWAP);
                     after five stones, one stone
  --max-size N       refuse START with a bigger board (ERROR Unsupported board size!)
  --no-restart       answer RESTART as an unknown command
  --die-after N      exit after answering N moves (a crash, for the connector to restart it)
"""
import os
import sys

args = sys.argv[1:]


def option(name, default=None):
    if name in args:
        return args[args.index(name) + 1]
    return default


LOG = option("--log")
END = "\r\n" if "--crlf" in args else "\r" if "--cr" in args else "\n"
SWAP2 = "--swap2" in args
SWAP2_ANSWER = option("--swap2-answer", "two")
MAX_SIZE = int(option("--max-size", "20"))
RESTART = "--no-restart" not in args
DIE_AFTER = int(option("--die-after", "0"))
UNKNOWN = "--unknown" in args
PID = os.getpid()

size = 0
board = {}  # (x, y) -> 1 own, 2 opponent
answered = 0


def log(text):
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(f"{PID} {text}\n")


def say(line):
    sys.stdout.write(line + END)
    sys.stdout.flush()


def unknown(command):
    if UNKNOWN:
        say(f"UNKNOWN {command}")
    else:
        say(f"ERROR Unknown command: {command}")


def preferences():
    column = [(7, y) for y in range(7, size)] + [(7, y) for y in range(6, -1, -1)]
    rest = [(x, y) for y in range(size - 1, -1, -1) for x in range(size - 1, -1, -1) if x != 7]
    return column + rest


def fallback(count):
    """The first `count` free points from the bottom right, off column 7."""
    free = [(x, y) for y in range(size - 1, -1, -1) for x in range(size - 1, -1, -1)
            if x != 7 and (x, y) not in board]
    return free[:count]


def play():
    global answered
    stone = next(p for p in preferences() if p not in board)
    board[stone] = 1
    say("MESSAGE thinking hard")
    say("DEBUG nodes=1")
    say("")
    say(f"{stone[0]},{stone[1]}")
    answered += 1
    if DIE_AFTER and answered >= DIE_AFTER:
        sys.exit(0)


def read_stones():
    """The `x,y,field` lines up to DONE."""
    stones = []
    for raw in sys.stdin:
        line = raw.strip()
        log(line)
        if line.upper() == "DONE":
            break
        x, y, field = (int(v) for v in line.split(","))
        stones.append((x, y, field))
    return stones


def coordinates(points):
    return " ".join(f"{x},{y}" for x, y in points)


def main():
    global size, board
    log("started")
    for raw in sys.stdin:
        line = raw.strip()
        log(line)
        if not line:
            continue
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word == "START":
            wanted = int(rest)
            if wanted > MAX_SIZE or wanted < 5:
                say("ERROR Unsupported board size!")
            else:
                size, board = wanted, {}
                say("OK")
        elif word == "RESTART" and RESTART:
            board = {}
            say("OK")
        elif word == "INFO":
            pass
        elif word == "ABOUT":
            say('name="pytest-brain", version="1.0", author="Arbiter tests", country="NL"')
        elif word == "BEGIN":
            board = {}
            play()
        elif word == "TURN":
            x, y = (int(v) for v in rest.split(","))
            board[(x, y)] = 2
            play()
        elif word == "BOARD":
            board = {(x, y): field for x, y, field in read_stones()}
            play()
        elif word == "SWAP2BOARD" and SWAP2:
            stones = read_stones()
            board = {(x, y): field for x, y, field in stones}
            say("MESSAGE swap2")
            if not stones:
                say("7,7 8,7 9,9")
            elif len(stones) == 3 and SWAP2_ANSWER == "swap":
                say("SWAP")
            elif len(stones) == 3 and SWAP2_ANSWER == "two":
                say(coordinates(fallback(2)))
            else:
                say(coordinates(fallback(1)))
        elif word == "END":
            return
        else:
            unknown(line)


main()
