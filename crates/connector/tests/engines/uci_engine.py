#!/usr/bin/env python3
"""A UCI chess engine for the connector's tests, standard library only.

It knows no chess: it answers `uci` (with `id` lines and a few options), `isready`,
`setoption`, `ucinewgame`, `position`, `go`, `stop` and `quit` as the protocol says, and plays
the first move of `go ... searchmoves`, else the move `--move` names. It is meant for checking
what the connector sends, not for playing games.

Options:
  --log FILE        append "PID LINE" for every line read (and "PID started") to FILE
  --name NAME       the name given in `id name` (default: Fake UCI 1.0)
  --move MOVE       the move played when `go` lists no searchmoves (default: e2e4)
  --answer MODE     how `go` is answered:
                      first  the first searchmove, else --move (the default)
                      none   bestmove (none)
                      illegal  bestmove a1a1
                      hang   nothing until `stop`, then as `first`
                      deaf   nothing, not even after `stop`
                      die    exit at once
  --no-chess960     list no UCI_Chess960 option
"""
import os
import sys

args = sys.argv[1:]


def option(name, default=None):
    if name in args:
        return args[args.index(name) + 1]
    return default


LOG = option("--log")
NAME = option("--name", "Fake UCI 1.0")
MOVE = option("--move", "e2e4")
ANSWER = option("--answer", "first")
CHESS960 = "--no-chess960" not in args
PID = os.getpid()


def log(text):
    if LOG:
        with open(LOG, "a", encoding="utf-8") as f:
            f.write(f"{PID} {text}\n")


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def chosen(go):
    words = go.split()
    if "searchmoves" in words:
        moves = words[words.index("searchmoves") + 1:]
        if moves:
            return moves[0]
    return MOVE


def main():
    log("started")
    pending = None
    for line in sys.stdin:
        line = line.strip()
        log(line)
        word = line.split(" ", 1)[0] if line else ""
        if word == "uci":
            say(f"id name {NAME}")
            say("id author the Arbiter tests")
            say("option name Hash type spin default 16 min 1 max 1024")
            say("option name Skill Level type spin default 20 min 0 max 20")
            if CHESS960:
                say("option name UCI_Chess960 type check default false")
            say("uciok")
        elif word == "isready":
            say("readyok")
        elif word == "go":
            if ANSWER == "die":
                sys.exit(3)
            say("info depth 1 score cp 0")
            if ANSWER == "none":
                say("bestmove (none)")
            elif ANSWER == "illegal":
                say("bestmove a1a1")
            elif ANSWER in ("hang", "deaf"):
                pending = line
            else:
                say(f"bestmove {chosen(line)} ponder e7e5")
        elif word == "stop":
            if pending is not None and ANSWER == "hang":
                say(f"bestmove {chosen(pending)}")
            pending = None
        elif word == "quit":
            return


main()
