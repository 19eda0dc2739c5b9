#!/usr/bin/env python3
"""A small engine for Fate Tokens on Arbiter's generic engine protocol.

The connector runs it once per leg and keeps it running:

    arbiter bot --engine 'python3 examples/fate_tokens_engine.py' --games fate-tokens

It reads one JSON request per line and writes one JSON answer per line, flushing each:

    request: {"protocol":1,"game":"fate-tokens","seat":2,"phase":14,"view":{...},
              "legal_actions":[{"type":"vote","phase":14,"yes":true},...],...}
    answer:  {"action": {"type":"vote","phase":14,"yes":false}}

The action must be one of legal_actions, copied as it is. Unknown fields are ignored, since
the protocol may grow. docs/engine-protocol.md describes the protocol, and
docs/rules/fate-tokens.md the game.

The play is plain: show the better of the two drawn tokens, say "ready" at once, accuse and
vote against a player only when the tokens they have shown look clearly bad, mark that
player at night, and decline every counter. A bot author would start here and add claims,
chat and a real model of who holds which role.
"""
import json
import sys

# How good a token looks when shown: Good tokens come mostly from good bags.
TOKEN_VALUE = {"good": 1, "neutral": 0, "bad": -1}

# A player is worth accusing once the tokens they have shown add up to this or worse.
SUSPICIOUS = -2


def suspicion(seat):
    """How bad a seat's shown tokens look: its revealed row and the pile tokens the
    suspicion threshold exposed (lower is worse)."""
    shown = seat.get("revealed", []) + seat.get("exposed", [])
    return sum(TOKEN_VALUE.get(token, 0) for token in shown)


def suspect(request):
    """The living player (not this seat, nor a fellow Great Misfortune) whose tokens look
    worst, if they look bad enough to act on; otherwise None."""
    view = request["view"]
    own = view.get("own") or {}
    # A Great Misfortune knows the other ones (in games with two) and never turns on them.
    spared = {request["seat"], *own.get("fellow_great_misfortunes", [])}
    candidates = [
        seat for seat in view["seats"]
        if seat["life"] == "living" and seat["seat"] not in spared
    ]
    if not candidates:
        return None
    worst = min(candidates, key=suspicion)
    return worst["seat"] if suspicion(worst) <= SUSPICIOUS else None


def choose_reveal(request, legal):
    """Draw phase: show the better-looking of the two drawn tokens, keep the other."""
    drawn = request["view"]["own"]["drawn"]
    best = max(range(2), key=lambda index: TOKEN_VALUE.get(drawn[index], 0))
    return next(a for a in legal if a["index"] == best)


def choose_accusation(request, legal):
    """Accusation phase: accuse the suspect, if there is one; otherwise pass."""
    target = suspect(request)
    return next((a for a in legal if a["target"] == target), legal[0])


def choose_night(request, legal):
    """Night: legal_actions is a sample of valid forms, each adding one choice to what the
    night requires (a Common Fortune's helper, on a helper night). Put a suspicion mark on
    the suspect if there is one; otherwise send the plainest form, the first."""
    target = suspect(request)
    for action in legal:
        form = action["form"]
        if target is not None and form.get("mark") == target:
            return action
    return legal[0]


def choose_vote(request, legal):
    """Vote: exile the accused only if they are the suspect; otherwise vote no."""
    trials = request["view"]["trials"]
    accused = trials[-1]["accused"] if trials else None
    yes = accused is not None and accused == suspect(request)
    return next((a for a in legal if a["yes"] == yes), legal[0])


def choose(request):
    """An action from legal_actions (the first one when nothing better is known)."""
    legal = request.get("legal_actions") or []
    if not legal:
        return None  # Only a grammar: this engine does not build actions from one.
    if request.get("game") != "fate-tokens":
        return legal[0]
    kind = legal[0].get("type")
    try:
        if kind == "reveal":
            return choose_reveal(request, legal)
        if kind == "accuse":
            return choose_accusation(request, legal)
        if kind == "night":
            return choose_night(request, legal)
        if kind == "vote":
            return choose_vote(request, legal)
        if kind == "counter":
            # Decline: the first listed answer, naming nobody.
            return next(a for a in legal if a["name"] is None)
    except (KeyError, TypeError, ValueError, IndexError, StopIteration):
        pass  # A view this engine does not understand: fall back below.
    # "ready" in discussions and trials, and anything unknown: the first legal action.
    return legal[0]


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        action = choose(json.loads(line))
        # stdout carries answers only; anything else goes to stderr.
        print(json.dumps({"action": action}), flush=True)


if __name__ == "__main__":
    main()
