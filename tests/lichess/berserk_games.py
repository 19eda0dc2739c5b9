#!/usr/bin/env python3
"""Plays games on Arbiter's Lichess-compatible Bot API with berserk, an unmodified Lichess client.

The server is the one at ARBITER_BASE (its root, e.g. http://127.0.0.1:8080), and ARBITER_ADMIN
is its administrator token, used only to register the bots. The script checks a token test, the
account, a challenge made and accepted, a standard game to checkmate, one agreed drawn, one
resigned, chat on the game streams, a whole Dice Chess game of random legal micro-moves between
two bots that each follow their own game stream, and an anonymous bot playing itself.

It prints a line per step and exits with status 1 and a message on the first failure. The whole
run has a time limit (ARBITER_LICHESS_LIMIT_S, 120 s by default), so it can never hang a CI job.
Needs berserk 0.14.0 (and requests, which berserk installs).
"""

import datetime
import os
import random
import secrets
import signal
import sys
import threading
import time
import traceback

try:
    import berserk
    import requests
except ImportError as missing:
    print(f"FAIL: {missing}; run this script with the Python of a virtual environment that has "
          "berserk==0.14.0 installed", flush=True)
    sys.exit(1)

BASE = os.environ.get("ARBITER_BASE", "").rstrip("/")
ADMIN = os.environ.get("ARBITER_ADMIN", "")
LIMIT_S = int(os.environ.get("ARBITER_LICHESS_LIMIT_S", "120"))
# The longest any single wait for the server lasts; far more than a debug build needs.
PATIENCE_S = 20.0
# Every name carries this run's suffix, so that the script may also run against a server that
# already has bots from earlier runs.
SUFFIX = secrets.token_hex(3)


class Failure(Exception):
    """A check that did not hold."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def log(text):
    print(text, flush=True)


def on_time_limit(_signal, _frame):
    # Reader threads may be blocked in a socket read that no exception can interrupt, so the
    # process ends at once instead of unwinding.
    log(f"FAIL: the run took longer than its limit of {LIMIT_S} s")
    sys.stdout.flush()
    os._exit(1)


def client(token):
    """A berserk client of its own: requests sessions are not shared between threads."""
    return berserk.Client(berserk.TokenSession(token), base_url=BASE)


def native(method, path, token, body=None):
    """A call to the server's native API (`/api/v1`), which berserk knows nothing of."""
    response = requests.request(
        method,
        f"{BASE}/api/v1{path}",
        headers={"Authorization": f"Bearer {token}"},
        json=body,
        timeout=PATIENCE_S,
    )
    check(response.ok, f"{method} /api/v1{path}: {response.status_code} {response.text}")
    return response.json()


def register(name):
    """Registers a chess bot with the administrator's token; its name and token."""
    name = f"{name}-{SUFFIX}"
    body = {"name": name, "supported_variants": ["chess"]}
    return name, native("POST", "/admin/bots", ADMIN, body)["token"]


def legal_actions(game_id, token):
    """The legal moves of the decision `token` has to make now, from the native API.

    The game stream can show a new state a moment before the arena lists the decision that
    goes with it, so an empty list is asked for again for a while.
    """
    deadline = time.monotonic() + PATIENCE_S
    while True:
        turns = native("GET", f"/matches/{game_id}/turns", token)["turns"]
        if turns:
            return turns[0]["request"]["legal_actions"]
        check(time.monotonic() < deadline, f"game {game_id}: no decision is pending")
        time.sleep(0.02)


class EventFeed(threading.Thread):
    """A bot's event stream, read on a thread of its own and kept for the steps to search."""

    def __init__(self, name, token):
        super().__init__(daemon=True)
        self.name = name
        self.client = client(token)
        self.events = []
        self.error = None
        self.changed = threading.Condition()

    def run(self):
        try:
            for event in self.client.bots.stream_incoming_events():
                with self.changed:
                    self.events.append(event)
                    self.changed.notify_all()
        except Exception as error:  # The waiting step reports it.
            self.error = error
        with self.changed:
            self.error = self.error or Failure(f"{self.name}'s event stream ended")
            self.changed.notify_all()

    def wait_for(self, kind, game_id):
        """The first event of `kind` about game or challenge `game_id`, waiting for it."""

        def about(event):
            subject = event.get("game") or event.get("challenge") or {}
            return event.get("type") == kind and subject.get("id") == game_id

        deadline = time.monotonic() + PATIENCE_S
        with self.changed:
            while True:
                found = next((e for e in self.events if about(e)), None)
                if found is not None:
                    return found
                if self.error is not None:
                    raise Failure(f"{self.name}: waiting for {kind} of {game_id}: {self.error}")
                left = deadline - time.monotonic()
                check(left > 0, f"{self.name}: no {kind} event for {game_id}")
                self.changed.wait(left)


class Player(threading.Thread):
    """One side of a game, following its own game stream and moving when `decide` says so.

    `decide(player, state)` runs for the state in `gameFull` and every `gameState` while the
    game is on; the player waits for `go` before the first, so that a step can do something
    (chat) while both streams are open and the game has not moved yet.
    """

    def __init__(self, name, token, game_id, decide):
        super().__init__(daemon=True)
        self.name = name
        self.token = token
        self.client = client(token)
        self.game_id = game_id
        self.decide = decide
        self.ready = threading.Event()
        self.go = threading.Event()
        self.lines = []
        self.states = []
        self.full = None
        self.colour = None
        self.closed = False
        self.error = None
        self.handled = set()
        self.final_at = None
        # The players of the same game, whose failures end the wait for this one.
        self.group = [self]

    def run(self):
        try:
            for line in self.client.bots.stream_game_state(self.game_id):
                self.lines.append(line)
                if line["type"] == "gameFull":
                    check(not self.lines[:-1], f"{self.name}: gameFull is not the first line")
                    self.full = line
                    white = line["white"]["name"]
                    self.colour = "white" if white == self.name else "black"
                    state = line["state"]
                    self.ready.set()
                    check(self.go.wait(PATIENCE_S), f"{self.name}: never told to start")
                elif line["type"] == "gameState":
                    state = line
                else:
                    continue
                check(not self.states or self.states[-1]["status"] == "started",
                      f"{self.name}: a state came after the final one")
                self.states.append(state)
                if state["status"] == "started":
                    self.decide(self, state)
                else:
                    self.final_at = time.monotonic()
            self.closed = True
        except Exception as error:  # The step that joins the player reports it.
            self.error = error
            self.ready.set()

    def my_turn(self, state):
        """Whether it is this side's turn in a game of single moves, and it has not moved in
        this position yet (a state may repeat, say when a draw is offered)."""
        ply = len(state["moves"].split())
        side = "white" if ply % 2 == 0 else "black"
        if side != self.colour or ply in self.handled:
            return False
        self.handled.add(ply)
        return True

    def finish(self):
        """Waits for the game's end and for the stream to close after it; the final state.

        A game lasts as long as it lasts (the run's time limit bounds it), but once the final
        state has come the stream must close promptly. A failure on the other side's thread
        is reported at once instead of waiting for a game that can no longer go on.
        """
        while self.is_alive():
            self.join(0.05)
            for player in self.group:
                if player.error is not None:
                    raise Failure(f"{player.name}: {player.error!r}")
            if self.final_at is not None:
                check(time.monotonic() - self.final_at < PATIENCE_S,
                      f"{self.name}: the game stream stayed open after the final state")
        if self.error is not None:
            raise Failure(f"{self.name}: {self.error!r}")
        check(self.closed and self.states, f"{self.name}: the stream closed without a state")
        final = self.states[-1]
        check(final["status"] != "started",
              f"{self.name}: the stream closed while the game was on: {final}")
        return final


def start_game(challenger, accepter, variant=None, colour="white", clock=(120, 1)):
    """`challenger` challenges `accepter` with berserk, which accepts on seeing the challenge
    on its event stream; both see `gameStart`. Each is (name, token, feed). The game's id."""
    name_a, token_a, feed_a = challenger
    name_b, token_b, feed_b = accepter
    created = client(token_a).challenges.create(
        name_b, rated=False, clock_limit=clock[0], clock_increment=clock[1],
        color=colour, variant=variant,
    )
    game_id = created["id"]
    check(created["challenger"]["name"] == name_a, f"challenger in {created}")
    offered = feed_b.wait_for("challenge", game_id)["challenge"]
    check(offered["direction"] == "in" and offered["challenger"]["name"] == name_a,
          f"the challenge as {name_b} sees it: {offered}")
    check(offered["variant"]["key"] == (variant or "standard"), f"variant in {offered}")
    check(offered["timeControl"]["limit"] == clock[0], f"timeControl in {offered}")
    client(token_b).bots.accept_challenge(game_id)
    for feed in (feed_a, feed_b):
        started = feed.wait_for("gameStart", game_id)["game"]
        # lichess-bot reads `id` and the playing list's readers `gameId`: both must be there.
        check(started["gameId"] == game_id and started["id"] == game_id, f"gameStart: {started}")
    return game_id


def scripted(moves):
    """A decider that plays its side's moves of a fixed line."""

    def decide(player, state):
        ply = len(state["moves"].split())
        if ply < len(moves) and player.my_turn(state):
            player.client.bots.make_move(player.game_id, moves[ply])

    return decide


def play(players, hold=False):
    """Starts both sides and waits for both streams' `gameFull`; then lets them move unless
    `hold` (the caller sets each player's `go` itself). The players."""
    for player in players:
        player.group = players
        player.start()
    for player in players:
        check(player.ready.wait(PATIENCE_S), f"{player.name}: no gameFull")
        if player.error is not None:
            raise Failure(f"{player.name}: {player.error!r}")
    for player in players:
        if not hold:
            player.go.set()
    return players


def check_states(player, variant_key):
    """What every client reads of the game stream is there and in the units clients expect."""
    full = player.full
    for field in ("id", "variant", "speed", "perf", "rated", "createdAt", "white", "black",
                  "initialFen", "state", "clock"):
        check(field in full, f"{player.name}: gameFull has no {field}: {full}")
    check(full["variant"]["key"] == variant_key, f"variant: {full['variant']}")
    # berserk turns createdAt into a datetime, which works only for milliseconds as a number.
    check(isinstance(full["createdAt"], datetime.datetime), f"createdAt: {full['createdAt']!r}")
    check(full["state"]["type"] == "gameState", f"gameFull.state: {full['state']}")
    for line in player.lines[1:]:
        if line["type"] != "gameState":
            continue
        for field in ("wtime", "btime", "winc", "binc"):
            check(isinstance(line[field], datetime.timedelta),
                  f"{player.name}: gameState.{field} is not milliseconds: {line}")


def step(title, action):
    started = time.monotonic()
    action()
    log(f"ok   {title} ({time.monotonic() - started:.1f} s)")


def main():
    check(BASE and ADMIN, "set ARBITER_BASE (the server's root URL) and ARBITER_ADMIN")
    signal.signal(signal.SIGALRM, on_time_limit)
    signal.alarm(LIMIT_S)
    began = time.monotonic()
    log(f"berserk {berserk.__version__} against {BASE}")
    if berserk.__version__ != "0.14.0":
        log("     note: the checks were written against berserk 0.14.0")

    alpha = register("Alpha")
    beta = register("Beta")
    feeds = {}

    def token_test():
        # lichess-bot sends the bare token as the body without a content type; berserk has no
        # method for this endpoint.
        tested = requests.post(f"{BASE}/api/token/test", data=f"{alpha[1]},not-a-token",
                               headers={"Content-Type": None}, timeout=PATIENCE_S)
        check(tested.status_code == 200, f"token test: {tested.status_code} {tested.text}")
        answers = tested.json()
        mine = answers.get(alpha[1]) or {}
        check(mine.get("userId") == alpha[0].lower(), f"token test userId: {answers}")
        check("bot:play" in mine.get("scopes", "").split(","), f"token test scopes: {answers}")
        check(answers.get("not-a-token", "missing") is None, f"a bad token: {answers}")

    def account():
        me = client(alpha[1]).account.get()
        check(me["username"] == alpha[0] and me["id"] == alpha[0].lower(), f"account: {me}")
        check(me.get("title") == "BOT", f"account title: {me}")

    def streams():
        for name, token in (alpha, beta):
            feed = EventFeed(name, token)
            feed.start()
            feeds[name] = (name, token, feed)

    step("token test (POST /api/token/test)", token_test)
    step("account.get", account)
    step("event streams opened (bots.stream_incoming_events)", streams)
    a, b = feeds[alpha[0]], feeds[beta[0]]

    def fools_mate():
        game_id = start_game(a, b)
        fools = ["f2f3", "e7e5", "g2g4", "d8h4"]
        white, black = play([Player(alpha[0], alpha[1], game_id, scripted(fools)),
                             Player(beta[0], beta[1], game_id, scripted(fools))], hold=True)
        check((white.colour, black.colour) == ("white", "black"),
              f"colours: {white.full['white']} against {white.full['black']}")
        check(white.full["clock"] == {"initial": 120_000, "increment": 1000},
              f"clock in ms: {white.full['clock']}")
        # Chat while both streams are open and nobody has moved: each side's line must reach
        # both streams before the game ends.
        client(alpha[1]).bots.post_message(game_id, "good luck")
        client(beta[1]).bots.post_message(game_id, "have fun", spectator=False)
        white.go.set()
        black.go.set()
        for player in (black, white):
            final = player.finish()
            check(final["status"] == "mate" and final.get("winner") == "black",
                  f"{player.name}: the final state: {final}")
            check(final["moves"] == " ".join(fools), f"moves: {final['moves']}")
            check_states(player, "standard")
            said = [(c["username"], c["room"], c["text"]) for c in player.lines
                    if c["type"] == "chatLine"]
            check((alpha[0], "player", "good luck") in said and
                  (beta[0], "player", "have fun") in said,
                  f"{player.name}: chat lines on the game stream: {said}")
        for _, _, feed in (a, b):
            finish = feed.wait_for("gameFinish", game_id)["game"]
            check(finish.get("winner") == "black", f"gameFinish: {finish}")

    def agreed_draw():
        game_id = start_game(a, b)
        session = {name: berserk.Requestor(berserk.TokenSession(token), BASE, berserk.JSON)
                   for name, token in (alpha, beta)}
        answers = []

        # berserk's draw methods are the Board API's (/api/board/...); its public Requestor
        # posts the Bot API's draw answer the way berserk posts everything else.
        def decide(player, state):
            ply = len(state["moves"].split())
            if ply < 2 and player.my_turn(state):
                player.client.bots.make_move(game_id, ["e2e4", "e7e5"][ply])
            elif ply == 2 and player.colour == "white" and not state.get("wdraw") \
                    and player.my_turn(state):
                answers.append(session[player.name].post(f"/api/bot/game/{game_id}/draw/yes"))
            elif player.colour == "black" and state.get("wdraw") and "draw" not in player.handled:
                player.handled.add("draw")
                answers.append(session[player.name].post(f"/api/bot/game/{game_id}/draw/yes"))

        players = play([Player(alpha[0], alpha[1], game_id, decide),
                        Player(beta[0], beta[1], game_id, decide)])
        for player in players:
            final = player.finish()
            check(final["status"] == "draw" and "winner" not in final,
                  f"{player.name}: the final state: {final}")
        check(answers == [{"ok": True}, {"ok": True}], f"the draw answers: {answers}")
        offered = [s for s in players[1].states if s.get("wdraw") is True]
        check(offered, f"Black never saw White's offer: {players[1].states}")

    def resignation():
        # Alpha asks for Black this time.
        game_id = start_game(a, b, colour="black")
        opening = ["e2e4", "c7c5", "g1f3"]

        def decide(player, state):
            ply = len(state["moves"].split())
            if ply < len(opening):
                scripted(opening)(player, state)
            elif player.colour == "black" and player.my_turn(state):
                player.client.bots.resign_game(game_id)

        players = play([Player(alpha[0], alpha[1], game_id, decide),
                        Player(beta[0], beta[1], game_id, decide)])
        check(players[0].colour == "black", f"Alpha asked for Black: {players[0].full}")
        for player in players:
            final = player.finish()
            check(final["status"] == "resign" and final.get("winner") == "white",
                  f"{player.name}: the final state: {final}")
        for _, _, feed in (a, b):
            finish = feed.wait_for("gameFinish", game_id)["game"]
            check(finish["status"]["name"] == "resign", f"gameFinish: {finish}")

    dice_counts = {}

    def dice_chess():
        game_id = start_game(a, b, variant="diceChess", clock=(300, 5))
        generators = {alpha[0]: random.Random(1), beta[0]: random.Random(2)}
        played = []

        def decide(player, state):
            check(isinstance(state.get("dice"), dict) and isinstance(state.get("dfen"), str),
                  f"{player.name}: a Dice Chess state without dice or dfen: {state}")
            for field in ("rolled", "unused", "target", "played", "nonce"):
                check(field in state["dice"], f"dice.{field} missing: {state['dice']}")
            side = "white" if state["dfen"].split()[1] == "w" else "black"
            # Several micro-moves make one turn, so the side to move comes from the DFEN, and
            # a position is answered once (keyed by the moves so far).
            if side != player.colour or state["moves"] in player.handled:
                return
            player.handled.add(state["moves"])
            legal = legal_actions(game_id, player.token)
            move = generators[player.name].choice(sorted(legal))
            player.client.bots.make_move(game_id, move)
            played.append(move)

        players = play([Player(alpha[0], alpha[1], game_id, decide),
                        Player(beta[0], beta[1], game_id, decide)])
        # Both threads must be done before `played` is complete: the side that ends the game
        # notes its last move after the other's stream has closed.
        finals = [player.finish() for player in players]
        for player, final in zip(players, finals):
            check_states(player, "diceChess")
            check(all("dice" in s and "dfen" in s for s in player.states),
                  f"{player.name}: a state without dice or dfen")
            # The two threads note their moves in an order of their own, so the lists are
            # compared as collections.
            check(sorted(final["moves"].split()) == sorted(played),
                  f"{player.name}: the moves played and those shown differ: played "
                  f"{played}, shown {final['moves']}")
        dice_counts["micro-moves"] = len(played)
        dice_counts["status"] = players[0].states[-1]["status"]
        dice_counts["winner"] = players[0].states[-1].get("winner", "none")

    step("standard game to checkmate, with chat on both game streams", fools_mate)
    step("standard game drawn by agreement (draw/yes by both)", agreed_draw)
    step("standard game resigned (bots.resign_game)", resignation)
    step("Dice Chess game of random legal micro-moves to its end", dice_chess)
    log(f"     Dice Chess: {dice_counts['micro-moves']} micro-moves, "
        f"{dice_counts['status']}, winner {dice_counts['winner']}")

    def anonymous():
        minted = requests.post(f"{BASE}/api/v1/bots/anon", json={}, timeout=PATIENCE_S)
        # A server mints only a few anonymous bots per address and hour, so this step wants
        # a fresh server when the script runs again and again.
        check(minted.status_code == 201, f"anonymous bot: {minted.status_code} {minted.text}")
        token = minted.json()["token"]
        me = client(token).account.get()
        name = me["username"]
        feed = EventFeed(name, token)
        feed.start()
        game_id = client(token).challenges.create(name, rated=False, clock_limit=120,
                                                  clock_increment=1)["id"]
        feed.wait_for("gameStart", game_id)
        generator = random.Random(3)
        mine = client(token)
        seen = []
        # One stream and one loop play both sides: random legal moves for six plies, then a
        # resignation.
        for line in mine.bots.stream_game_state(game_id):
            state = line["state"] if line["type"] == "gameFull" else line
            if line["type"] not in ("gameFull", "gameState"):
                continue
            seen.append(state)
            if state["status"] != "started":
                continue
            ply = len(state["moves"].split())
            if ply in {len(s["moves"].split()) for s in seen[:-1]}:
                continue
            if ply < 6:
                legal = sorted(legal_actions(game_id, token))
                mine.bots.make_move(game_id, generator.choice(legal))
            else:
                mine.bots.resign_game(game_id)
        final = seen[-1]
        check(final["status"] == "resign" and len(final["moves"].split()) == 6,
              f"the self-play game's final state: {final}")
        feed.wait_for("gameFinish", game_id)

    step("anonymous bot plays itself, then resigns", anonymous)
    log(f"PASS: all berserk steps in {time.monotonic() - began:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except Failure as failure:
        log(f"FAIL: {failure}")
        sys.exit(1)
    except Exception:
        traceback.print_exc(file=sys.stdout)
        log("FAIL: an unexpected error (above)")
        sys.exit(1)
