// Arbiter's pages work without this script; it adds copying tokens, confirming deletes, and
// following live matches.
"use strict";

document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  const field = document.getElementById(button.dataset.copy);
  field.select();
  const done = () => { button.textContent = "Copied"; };
  if (navigator.clipboard) {
    navigator.clipboard.writeText(field.value).then(done, () => document.execCommand("copy") && done());
  } else if (document.execCommand("copy")) {
    done();
  }
});

document.addEventListener("submit", (event) => {
  const message = event.target.dataset.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});

// Clocks count down between updates, from what the server said was left when the page or
// fragment was made; the server's own clock stays the judge.
let clocksFrom = performance.now();
function tickClocks() {
  const elapsed = performance.now() - clocksFrom;
  for (const clock of document.querySelectorAll(".clock[data-running='true']")) {
    const left = Math.max(0, Number(clock.dataset.ms) - elapsed);
    const seconds = Math.floor(left / 1000);
    const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    const pad = (n) => String(n).padStart(2, "0");
    clock.textContent = h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
  }
}
setInterval(tickClocks, 250);

// A live match: wait for the match's next events, then let `refresh` fetch what shows it
// again as HTML; `open` says whether the match is still worth following.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
async function follow(id, since, open, refresh) {
  while (open()) {
    try {
      const reply = await fetch(`/api/v1/matches/${id}/events?since=${since}&wait=25`);
      if (!reply.ok) { await sleep(3000); continue; }
      const page = await reply.json();
      if (page.events.length === 0) continue;
      since = page.next_since;
      if (!(await refresh())) await sleep(3000);
    } catch {
      await sleep(3000);
    }
  }
}

// Brings `old` to what `fresh` is, keeping every element whose place and kind did not change:
// a button under the visitor's pointer or finger stays the same element while a bot's line
// of chat arrives, so that its click is not lost between the press and the release.
function morph(old, fresh) {
  if (old.isEqualNode(fresh)) return;
  if (old.nodeType !== Node.ELEMENT_NODE || old.nodeName !== fresh.nodeName
      || old.childNodes.length !== fresh.childNodes.length) {
    old.replaceWith(fresh);
    return;
  }
  for (const { name } of [...old.attributes]) {
    if (!fresh.hasAttribute(name)) old.removeAttribute(name);
  }
  for (const { name, value } of [...fresh.attributes]) {
    if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  }
  const olds = [...old.childNodes];
  const freshes = [...fresh.childNodes];
  olds.forEach((child, i) => morph(child, freshes[i]));
}

// The match page brings its legs up to date, keeping what the visitor was entering in its
// forms and where the focus was. Refreshes overlap (the long-poll's and a sent action's): one
// answered after a later-asked one has been shown is older than what the page shows, and would
// bring back a form already sent, so it is dropped.
let refreshesAsked = 0;
let refreshShown = 0;
async function refreshLegs(id) {
  const ticket = ++refreshesAsked;
  const fragment = await fetch(`/matches/${id}/legs`);
  if (!fragment.ok) return false;
  const html = await fragment.text();
  if (ticket < refreshShown) return true;
  refreshShown = ticket;
  const focus = focusedField();
  const next = document.createElement("template");
  next.innerHTML = html;
  const fresh = next.content.getElementById("legs");
  const legsNow = document.getElementById("legs");
  if (!fresh || !legsNow) return false;
  morph(legsNow, fresh);
  clocksFrom = performance.now();
  tickClocks();
  restorePicks();
  restoreEdits(focus);
  restoreDraws();
  queuePrompts();
  return true;
}
const legs = document.getElementById("legs");
if (legs && legs.dataset.open === "true") {
  follow(legs.dataset.match, Number(legs.dataset.since),
    () => document.getElementById("legs")?.dataset.open === "true",
    () => refreshLegs(legs.dataset.match));
}

// The home page's small boards each swap in their own fragment, and the list of boards is
// fetched again every 15 seconds, so that matches started since the page was loaded appear and
// finished ones make way. A board already followed keeps its one long-poll.
const followed = new Set();
function followMinis() {
  for (const mini of document.querySelectorAll("[data-mini][data-open='true']")) {
    const id = mini.dataset.mini;
    if (followed.has(id)) continue;
    followed.add(id);
    const current = () => document.querySelector(`[data-mini="${id}"]`);
    follow(id, Number(mini.dataset.since), () => current()?.dataset.open === "true", async () => {
      const fragment = await fetch(`/matches/${id}/mini`);
      if (!fragment.ok || !current()) return false;
      current().outerHTML = await fragment.text();
      return true;
    }).finally(() => followed.delete(id));
  }
}
const boardIds = (root) => [...root.querySelectorAll("[data-mini]")].map((b) => b.dataset.mini).join(" ");
async function refreshLive() {
  try {
    const reply = await fetch("/live");
    if (!reply.ok) return;
    const next = document.createElement("template");
    next.innerHTML = await reply.text();
    const live = document.getElementById("live");
    const fresh = next.content.getElementById("live");
    if (!live || !fresh || boardIds(live) === boardIds(fresh)) return;
    live.replaceWith(fresh);
    followMinis();
  } catch {
    // The next round tries again.
  }
}
// Lists that change as matches open, fill and end (the open tables, the running matches, a
// tournament's standings and rounds): fetched again every few seconds and swapped in when
// their signature changed. A list that no longer changes (a finished tournament's) comes back
// without an address to fetch, and is fetched no more.
async function refreshList(id) {
  const current = document.getElementById(id);
  if (!current || !current.dataset.refresh) return;
  try {
    const reply = await fetch(current.dataset.refresh);
    if (!reply.ok) return;
    const next = document.createElement("template");
    next.innerHTML = await reply.text();
    const fresh = next.content.getElementById(id);
    if (fresh && fresh.dataset.signature !== current.dataset.signature) current.replaceWith(fresh);
  } catch {
    // The next round tries again.
  }
}
for (const id of ["lobby", "watch", "tournament"]) {
  if (document.getElementById(id)) setInterval(() => refreshList(id), 3000);
}
if (document.getElementById("live")) {
  followMinis();
  setInterval(refreshLive, 15000);
}

// Replays step with the keyboard: arrows, Home and End follow the matching link.
document.addEventListener("keydown", (event) => {
  if (!document.querySelector("[data-replay]") || event.target.closest("input, textarea")) return;
  const link = document.querySelector(`[data-key="${event.key}"]`);
  if (link) { event.preventDefault(); window.location.href = link.href; }
});

// A person's move: clicking (or pressing Enter or Space on) a marked square sends it, and so
// does an action's button under a leg; then the legs are fetched again. The server's answer
// decides, and a refusal is shown above the legs. Without this script the buttons' forms post
// the same fields and the server answers with the match page again.
async function sendAction(box, leg, revision, action, formKey) {
  const legsNow = document.getElementById("legs");
  if (!box || !legsNow || box.dataset.busy) return;
  box.dataset.busy = "true";
  const body = new URLSearchParams({ csrf: legsNow.dataset.csrf, leg, revision, action });
  const id = legsNow.dataset.match;
  try {
    const reply = await fetch(`/matches/${id}/moves`, {
      method: "POST", body, headers: { Accept: "application/json" },
    });
    const answer = await reply.json().catch(() => ({ ok: reply.ok, error: `refused (${reply.status})` }));
    // A form sent is done with: what was entered in it is not kept past the refresh.
    if (answer.ok && formKey) edits.delete(formKey);
    await refreshLegs(id);
    if (!answer.ok) {
      const status = document.querySelector("#legs .status");
      if (status) status.textContent = answer.error;
    }
  } finally {
    delete box.dataset.busy;
  }
}
function playSquare(square) {
  const box = square.closest("[data-play]");
  if (!box) return;
  // A drawn token is played once both are out of the bag.
  const area = square.closest("[data-draw]");
  if (area && !area.classList.contains("ready")) return;
  const [leg, revision] = box.dataset.play.split(" ");
  // A move from a picked point ends the pick: the point it started from is empty now.
  picks.delete(leg);
  sendAction(box, leg, revision, square.dataset.action);
}

// A board whose actions go from one point to another marks each point an action starts
// from with `data-pick`, and each action's end point as a `.play` square whose `data-from`
// names its start; the style sheet hides those until their start is picked. Clicking (or
// pressing Enter or Space on) a start picks it and shows its ends; clicking it again, or
// anything else on the board, or pressing Escape, drops the pick. Without this script such
// ends stay hidden, and the board's actions have no buttons under it either (the family says
// they are played on the board), so these boards, like every board, are played with the
// script; the actions the family leaves off the board keep their buttons.
// The pick of each leg is kept across the refreshes of the legs, which come twice after a
// move (the answer and the long-poll), so that a pick made between them survives.
const picks = new Map();
function showPick(box, point) {
  for (const start of box.querySelectorAll("[data-pick].picked")) start.classList.remove("picked");
  for (const end of box.querySelectorAll(".play.shown")) end.classList.remove("shown");
  const start = point && [...box.querySelectorAll("[data-pick]")].find((s) => s.dataset.pick === point);
  if (!start) return [];
  start.classList.add("picked");
  const ends = [...box.querySelectorAll(".play[data-from]")].filter((end) => end.dataset.from === point);
  for (const end of ends) end.classList.add("shown");
  return ends;
}
function pick(start, byKey) {
  const box = start.closest("[data-play]");
  if (!box) return;
  const leg = box.dataset.play.split(" ")[0];
  const point = picks.get(leg) === start.dataset.pick ? null : start.dataset.pick;
  if (point === null) picks.delete(leg); else picks.set(leg, point);
  const ends = showPick(box, point);
  // From the keyboard, the first end takes the focus: the ends come after every start in
  // the board, so tabbing to them would pass every other start first.
  if (byKey && ends.length > 0) ends[0].focus();
}
function dropPicks() {
  picks.clear();
  for (const box of document.querySelectorAll("[data-play]")) showPick(box, null);
}
function restorePicks() {
  for (const [leg, point] of [...picks]) {
    const box = [...document.querySelectorAll("[data-play]")].find((b) => b.dataset.play.split(" ")[0] === leg);
    if (!box || showPick(box, point).length === 0) picks.delete(leg);
  }
}
document.addEventListener("click", (event) => {
  const square = event.target.closest("[data-play] .play");
  if (square) { playSquare(square); return; }
  const start = event.target.closest("[data-play] [data-pick]");
  if (start) { pick(start, false); return; }
  if (event.target.closest("[data-play]")) dropPicks();
});
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && picks.size > 0) { dropPicks(); return; }
  if (event.key !== "Enter" && event.key !== " ") return;
  const square = event.target.closest?.("[data-play] .play");
  const start = event.target.closest?.("[data-play] [data-pick]");
  if (!square && !start) return;
  event.preventDefault();
  if (square) playSquare(square); else pick(start, true);
});
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-act]");
  if (!form) return;
  event.preventDefault();
  const fields = new FormData(form);
  sendAction(form.closest(".actions"), fields.get("leg"), fields.get("revision"), fields.get("action"));
});

// Action forms (`form[data-compose]`): the board's forms for actions composed of several
// fields. The action is the form's JSON template with each enabled field's value written at
// its JSON pointer (`data-pointer`); a field whose pointer's parent is missing or null is
// skipped, as `ActionForm::compose` does on the server. Then it is posted like a button's.
function setPointer(target, pointer, value) {
  const parts = pointer.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  const key = parts.pop();
  let parent = target;
  for (const part of parts) {
    if (parent === null || typeof parent !== "object") return;
    parent = parent[part];
  }
  if (parent === null || typeof parent !== "object") return;
  if (Array.isArray(parent)) {
    const index = Number(key);
    if (Number.isInteger(index) && index < parent.length) parent[index] = value;
  } else {
    parent[key] = value;
  }
}
function compose(form) {
  const action = JSON.parse(form.dataset.template);
  for (const field of form.querySelectorAll("[data-field]")) {
    if (field.disabled) continue;
    let value;
    switch (field.dataset.field) {
      case "choice": value = JSON.parse(field.value); break;
      case "check": value = field.checked; break;
      case "text":
        value = field.value.trim();
        if (value === "") return { error: "Write something first." };
        break;
      case "pick": {
        value = [...field.querySelectorAll("input:checked")].map((input) => JSON.parse(input.value));
        const count = Number(field.dataset.count);
        if (value.length !== count) return { error: `Choose exactly ${count}: ${field.querySelector("legend").textContent.trim()}` };
        break;
      }
      default: continue;
    }
    setPointer(action, field.dataset.pointer, value);
  }
  return { action };
}
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-compose]");
  if (!form) return;
  event.preventDefault();
  const composed = compose(form);
  if (composed.error) {
    const status = document.querySelector("#legs .status");
    if (status) status.textContent = composed.error;
    return;
  }
  const fields = new FormData(form);
  sendAction(form, fields.get("leg"), fields.get("revision"), JSON.stringify(composed.action), form.dataset.key);
});

// What the visitor changed in each form, by the form's key and the field's place in it, so
// that the refreshes that follow every event of the match (a bot's chat line) keep it.
const edits = new Map();
const controls = (form) => [...form.elements].filter((el) => el.type !== "hidden" && el.tagName !== "FIELDSET" && el.tagName !== "BUTTON");
document.addEventListener("input", noteEdit);
document.addEventListener("change", noteEdit);
function noteEdit(event) {
  const form = event.target.closest?.("#legs form[data-compose]");
  if (!form) return;
  const index = controls(form).indexOf(event.target);
  if (index < 0) return;
  if (!edits.has(form.dataset.key)) edits.set(form.dataset.key, new Map());
  edits.get(form.dataset.key).set(index, { value: event.target.value, checked: event.target.checked });
}
function focusedField() {
  const el = document.activeElement;
  const form = el?.closest?.("#legs form[data-compose]");
  if (!form) return null;
  return { key: form.dataset.key, index: controls(form).indexOf(el), start: el.selectionStart, end: el.selectionEnd };
}
function restoreEdits(focus) {
  for (const form of document.querySelectorAll("#legs form[data-compose]")) {
    const list = controls(form);
    for (const [index, saved] of edits.get(form.dataset.key) ?? []) {
      const el = list[index];
      if (!el || el.disabled) continue;
      if (el.type === "checkbox") {
        if (el.value === saved.value) el.checked = saved.checked;
      } else if (el.tagName === "SELECT") {
        const option = [...el.options].find((o) => o.value === saved.value && !o.disabled);
        if (option) el.value = saved.value;
      } else {
        el.value = saved.value;
      }
    }
    if (focus && focus.key === form.dataset.key && list[focus.index]) {
      const el = list[focus.index];
      el.focus();
      if (el.type === "text" && focus.start !== null) el.setSelectionRange(focus.start, focus.end);
    }
  }
}

// A bag to draw from (`[data-draw]`, a board's area for the visitor's draw): tapping the bag,
// pressing Enter or Space on it, or dragging out of it takes one token out; once both are out
// the area is ready and a token is revealed by clicking it. The tokens are already in the
// visitor's view: this only shows them. Kept per leg and phase across refreshes.
const draws = new Map();
function drawKey(area) {
  const box = area.closest("[data-play]");
  return box ? `${box.dataset.play.split(" ")[0]}:${area.dataset.draw}` : null;
}
function showDraw(area) {
  const count = draws.get(drawKey(area)) ?? 0;
  for (const token of area.querySelectorAll(".drawn[data-index]")) {
    token.classList.toggle("out", Number(token.dataset.index) < count);
  }
  area.classList.toggle("ready", count >= 2);
  if (count >= 2) area.querySelector("[data-bag]")?.setAttribute("aria-disabled", "true");
}
function drawOne(bag) {
  const area = bag.closest("[data-draw]");
  const key = area && drawKey(area);
  if (!key) return;
  const count = Math.min(2, (draws.get(key) ?? 0) + 1);
  draws.set(key, count);
  showDraw(area);
  if (count === 2) area.querySelector(".drawn.play")?.focus();
}
function restoreDraws() {
  for (const area of document.querySelectorAll("#legs [data-draw].open")) showDraw(area);
}
let dragFrom = null;
document.addEventListener("pointerdown", (event) => {
  const bag = event.target.closest?.("[data-bag]");
  dragFrom = bag ? { bag, x: event.clientX, y: event.clientY } : null;
});
document.addEventListener("pointerup", (event) => {
  const from = dragFrom;
  dragFrom = null;
  if (!from || event.target.closest?.("[data-bag]") === from.bag) return;
  if (Math.hypot(event.clientX - from.x, event.clientY - from.y) > 16) drawOne(from.bag);
});
document.addEventListener("click", (event) => {
  const bag = event.target.closest("[data-bag]");
  if (bag) drawOne(bag);
});
document.addEventListener("keydown", (event) => {
  if (event.key !== "Enter" && event.key !== " ") return;
  const bag = event.target.closest?.("[data-bag]");
  if (!bag) return;
  event.preventDefault();
  drawOne(bag);
});

// What to do now: each leg's prompt (`[data-prompt]`), when it changes, is queued and shown
// centred over the page for at least 2.5 s, then the next; the prompt stays written above
// the board too, where screen readers hear it (the centred copy is hidden from them). A
// leg's prompt still waiting in the queue when the leg's prompt changes again is out of date
// and makes way for the new one, so that the centred prompt never lags behind the game.
const promptQueue = [];
const promptsSeen = new Map();
let promptShowing = false;
function queuePrompts() {
  for (const prompt of document.querySelectorAll("#legs [data-prompt]")) {
    const leg = prompt.closest(".leg")?.getAttribute("aria-label") ?? "";
    if (promptsSeen.get(leg) === prompt.dataset.prompt) continue;
    promptsSeen.set(leg, prompt.dataset.prompt);
    const stale = promptQueue.findIndex((queued) => queued.leg === leg);
    if (stale >= 0) promptQueue.splice(stale, 1);
    promptQueue.push({ leg, text: prompt.dataset.prompt });
  }
  if (!promptShowing) nextPrompt();
}
function nextPrompt() {
  let toast = document.getElementById("prompt-toast");
  if (!toast) {
    toast = document.createElement("div");
    toast.id = "prompt-toast";
    toast.setAttribute("aria-hidden", "true");
    document.body.append(toast);
  }
  const text = promptQueue.shift()?.text;
  if (text === undefined) {
    toast.classList.remove("shown");
    promptShowing = false;
    return;
  }
  promptShowing = true;
  toast.textContent = text;
  toast.classList.add("shown");
  setTimeout(nextPrompt, 2500);
}
if (document.getElementById("legs")) {
  restoreDraws();
  queuePrompts();
}
