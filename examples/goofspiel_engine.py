#!/usr/bin/env python3
"""A small engine for Arbiter's generic engine protocol: Goofspiel, and any other game.

The connector runs it once per leg and keeps it running:

    arbiter bot --engine 'python3 examples/goofspiel_engine.py' --games goofspiel

It reads one JSON request per line and writes one JSON answer per line, flushing each:

    request: {"protocol":1,"game":"goofspiel","seat":1,"view":{...},
              "legal_actions":[{"round":3,"card":1},...],"remaining_ms":29000,...}
    answer:  {"action": {"round":3,"card":7}}

The action must be one of legal_actions, copied as it is. Unknown fields are ignored, since
the protocol may grow. docs/engine-protocol.md describes every field.

Goofspiel: bid the card whose rank in the hand matches the prize's rank among the prizes
still to be won, so a high prize gets a high card and a low prize a low one. Any other game
(or a request this engine does not understand) gets the first legal action.
"""
import json
import sys


def goofspiel_bid(request):
    """The card to bid, or None when the request is not a Goofspiel bid this engine reads."""
    view = request["view"]
    hand = sorted(view["hands"][request["seat"]])
    # Prizes and hands are the cards 1..N: one card of each left the game per revealed round,
    # so the prizes still to win (the one on the table included) are as many as our cards.
    revealed = {past["prize"] for past in view["history"]}
    cards = len(hand) + len(view["history"])
    prizes = [card for card in range(1, cards + 1) if card not in revealed]
    rank = prizes.index(view["prize"])
    return hand[min(rank, len(hand) - 1)]


def choose(request):
    """An action from legal_actions (the first one when nothing better is known)."""
    legal = request.get("legal_actions") or []
    if not legal:
        return None  # Only a grammar: this engine does not build actions from one.
    if request.get("game") == "goofspiel":
        try:
            card = goofspiel_bid(request)
            for action in legal:
                if action.get("card") == card:
                    return action
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            pass  # A view this engine does not understand: fall back below.
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
