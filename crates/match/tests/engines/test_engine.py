"""A test engine for `arbiter match`: plays the first legal action of any request.

Othello requests (FlipSight's) are answered {"move": square}, -1 to pass; requests of the
generic protocol {"action": ...}. With `--crash-on N` it exits without answering the first
request of game N, as a crashing engine does; with `--stall-on N` it answers that request only
after five seconds, as an engine that overruns its clock does.
"""
import json
import sys
import time

crash_on = stall_on = None
if len(sys.argv) == 3 and sys.argv[1] == "--crash-on":
    crash_on = int(sys.argv[2])
if len(sys.argv) == 3 and sys.argv[1] == "--stall-on":
    stall_on = int(sys.argv[2])

for line in sys.stdin:
    request = json.loads(line)
    if crash_on is not None and request.get("match_id") == crash_on:
        sys.exit(1)
    if stall_on is not None and request.get("match_id") == stall_on:
        stall_on = None
        time.sleep(5)
    if "legal_moves" in request:
        legal = request["legal_moves"]
        answer = {"move": legal[0] if legal else -1}
    else:
        answer = {"action": request["legal_actions"][0]}
    print(json.dumps(answer), flush=True)
