"""A JSON engine that fails in every way an engine can before it plays properly.

Its decisions count up in a file beside it (each failure restarts it): the first crashes, the
second hangs, the third prints garbage, the fourth plays an illegal move, the fifth answers
nothing; from then on it plays the first legal move, one answer per process (a one-shot engine).
"""
import json
import os
import sys
import time
from pathlib import Path

COUNT = Path(sys.argv[1])

line = sys.stdin.readline()
request = json.loads(line)
count = int(COUNT.read_text()) if COUNT.exists() else 0
# Written atomically: a process stopped half-way (a slow start under load can overrun the
# budget) must not leave an empty count behind.
partial = COUNT.with_suffix(".partial")
partial.write_text(str(count + 1))
os.replace(partial, COUNT)
legal = request["legal_moves"]
if count == 0:
    print("crashing on purpose", file=sys.stderr, flush=True)
    sys.exit(3)
elif count == 1:
    time.sleep(60)
elif count == 2:
    print("I think d3 is nice", flush=True)
elif count == 3:
    illegal = next(sq for sq in range(len(request["board"])) if sq not in legal)
    print(json.dumps({"move": illegal}), flush=True)
elif count == 4:
    print("", flush=True)
else:
    print(json.dumps({"move": legal[0] if legal else -1}), flush=True)
