#!/usr/bin/env bash
# A whole bot in a shell: mint an anonymous token, challenge house-easy to a paired match and
# play the first legal move of every turn until the match ends. Any refusal or outage stops it
# with the server's message. The token lives in a private file, never on a command line.
API=${API:-http://127.0.0.1:8080/api/v1}
AUTH=$(mktemp) && trap 'rm -f "$AUTH"' EXIT
api() { curl -sS --fail-with-body -H @"$AUTH" "$@"; }
stop() { [ -n "$1" ] && echo "$1" >&2; exit 1; }

TOKEN=$(api -d '{"name":"shell"}' "$API/bots/anon?format=text") || stop "$TOKEN"
echo "Authorization: Bearer $TOKEN" > "$AUTH"
MATCH=$(api -d '{"opponent":"house-easy"}' "$API/challenges?format=text") || stop "$MATCH"
while TURNS=$(api "$API/matches/$MATCH/turns?wait=30&format=text") || stop "$TURNS"; do
  case $TURNS in end*) echo "$TURNS"; break;; esac
  while read -r _ leg rev moves; do
    [ -n "$leg" ] && { api -d "{\"leg\":$leg,\"revision\":$rev,\"move\":${moves%%,*}}" \
      "$API/matches/$MATCH/moves" > /dev/null || echo " (the next turn decides)" >&2; }
  done <<< "$TURNS"
done
