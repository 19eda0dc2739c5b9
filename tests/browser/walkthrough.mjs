// Arbiter's web pages in headless Chromium: the newcomer walkthrough from sign-up to a watched
// and replayed match, a person playing a house bot by clicking (Othello, and Dice Chess a
// piece and then its square at a time), a quick match in the colour a guest chose followed
// live on the home page, and the pages' refusals.
//
// Run by crates/arbiter/tests/browser.rs, which starts the server and passes:
//   BASE_URL    the server's address
//   ARBITER_BIN the arbiter binary, for the connector
//   CHROMIUM    the Chromium executable
//   SHOTS       a folder for screenshots at phone and desktop widths
import { spawn } from "node:child_process";
import zlib from "node:zlib";
import { chromium } from "playwright-core";
import { check, photograph, shots, step } from "./lib.mjs";

const base = process.env.BASE_URL;

// ----- small helpers -----

// A PNG of the given size, made here so that the test needs no picture files.
function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
function png(width, height) {
  const row = width * 3 + 1;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * row + 1 + x * 3;
      raw[at] = x % 256;
      raw[at + 1] = y % 256;
      raw[at + 2] = 120;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per channel
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
let connector;
let failed = false;
const owner = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 800 } });
const page = await owner.newPage();

try {
  let token;
  let matchUrl;
  let finalBoards;

  await step("sign up", async () => {
    await page.goto("/signup");
    await photograph(page, "signup");
    await page.fill("input[name=name]", "walker");
    await page.fill("input[name=password]", "correct horse battery");
    await page.click("form.stack button[type=submit]");
    await page.waitForURL("**/my/bots");
  });

  await step("pictures are checked", async () => {
    const cases = [
      [{ name: "small.png", mimeType: "image/png", buffer: png(100, 100) }, "at least 175×175"],
      [{ name: "big.png", mimeType: "image/png", buffer: Buffer.alloc(6 * 1024 * 1024) }, "larger than 5 MB"],
      [{ name: "text.png", mimeType: "image/png", buffer: Buffer.from("hello, I am text") }, "GIF, JPEG or PNG"],
    ];
    for (const [file, reason] of cases) {
      await page.goto("/my/bots");
      await page.fill("form[action='/my/bots'] input[name=name]", "Walker");
      await page.setInputFiles("input[name=photo]", file);
      await page.click("form[action='/my/bots'] button[type=submit]");
      const error = await page.textContent(".error");
      check(error.includes(reason), `${file.name}: "${error}"`);
    }
  });

  await step("a form with a forged CSRF value is refused", async () => {
    await page.goto("/my/bots");
    await page.fill("form[action='/my/bots'] input[name=name]", "Forged");
    await page.$eval("form[action='/my/bots'] input[name=csrf]", (input) => { input.value = "forged"; });
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/my/bots") && r.request().method() === "POST"),
      page.click("form[action='/my/bots'] button[type=submit]"),
    ]);
    check(response.status() === 403, `status ${response.status()}`);
    check((await page.content()).includes("invalid csrf"), "the page says why");
  });

  await step("register a bot with a picture; the token is shown once", async () => {
    await page.goto("/my/bots");
    await photograph(page, "my-bots");
    await page.fill("form[action='/my/bots'] input[name=name]", "Walker");
    check(await page.isChecked("input[name=variant][value=std]"), "std is pre-checked");
    await page.setInputFiles("input[name=photo]", { name: "me.png", mimeType: "image/png", buffer: png(240, 200) });
    await page.click("form[action='/my/bots'] button[type=submit]");
    await page.waitForURL("**/my/bots/Walker/token");
    token = await page.inputValue("#token");
    check(token.startsWith("arbb_"), `a token: ${token.slice(0, 5)}`);
    check(!page.url().includes(token), "not in the address");
    await photograph(page, "token");
    await page.reload();
    check((await page.locator("#token").count()) === 0, "gone after reload");
    check((await page.content()).includes("shown once and is gone"), "and the page says so");
  });

  await step("another browser never sees the token", async () => {
    const stranger = await browser.newContext({ baseURL: base });
    const other = await stranger.newPage();
    await other.goto("/my/bots/Walker/token");
    check(other.url().includes("/signin"), `sent to sign in, at ${other.url()}`);
    await other.goto("/bots/Walker");
    check(!(await other.content()).includes(token), "no token on the bot's page");
    check((await other.locator("text=Manage Walker").count()) === 0, "no manage menu");
    await stranger.close();
  });

  await step("start a practice connector; the dot turns green", async () => {
    await page.goto("/bots/Walker");
    check((await page.locator("h1 .dot.off").count()) === 1, "offline before the connector");
    connector = spawn(process.env.ARBITER_BIN, ["bot", "--server", base, "--practice"], {
      env: { ...process.env, ARBITER_TOKEN: token, RUST_LOG: "warn" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    for (let i = 0; i < 60; i++) {
      await page.reload();
      if ((await page.locator("h1 .dot.on").count()) === 1) break;
      await page.waitForTimeout(500);
    }
    check((await page.getAttribute("h1 .dot", "title")) === "online", "online");
    const photo = await page.getAttribute("img.photo", "src");
    check(photo.startsWith("/bots/Walker/photo"), "its picture is shown");
    await photograph(page, "bot");
  });

  await step("challenge a house bot; moves appear on the live page", async () => {
    await page.goto("/bots/house-medium");
    await page.selectOption("form.challenge select[name=pair]", "Walker std");
    await page.click("form.challenge button[type=submit]");
    await page.waitForURL(/\/matches\/\d+$/);
    matchUrl = page.url();
    check((await page.locator("#legs svg.board").count()) === 2, "both legs side by side");
    const movesAtLoad = await page.locator("#legs ol.moves li").count();
    await page.waitForFunction(
      (n) => document.querySelectorAll("#legs ol.moves li").length > n || document.getElementById("legs").dataset.open === "false",
      movesAtLoad,
      { timeout: 30_000 },
    );
    await photograph(page, "match-live");
    await page.waitForSelector("#legs[data-open='false']", { timeout: 240_000 });
    finalBoards = await page.$$eval("#legs svg.board", (boards) => boards.map((b) => b.getAttribute("aria-label")));
    check((await page.locator("#legs ol.moves li").count()) > 20, "the moves are listed");
    await photograph(page, "match-finished");
  });

  await step("the replay steps through to the same final position", async () => {
    for (const leg of [0, 1]) {
      await page.goto(`${matchUrl}/replay?leg=${leg}`);
      const label = await page.getAttribute("section.replay svg.board", "aria-label");
      check(label === finalBoards[leg], `leg ${leg}: ${label} ≠ ${finalBoards[leg]}`);
    }
    await page.keyboard.press("Home");
    await page.waitForFunction(() => document.getElementById("ply").textContent === "0");
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => document.getElementById("ply").textContent === "1");
    await photograph(page, "replay");
  });

  await step("home, bots, leaderboard and account pages", async () => {
    await page.goto("/");
    check((await page.content()).includes("Recent results"), "home");
    await photograph(page, "home");
    await page.goto("/bots");
    await photograph(page, "bots");
    await page.goto("/leaderboard?variant=std");
    // A practising bot's games are unrated, so Walker is not ranked.
    check((await page.locator("main >> text=Walker").count()) === 0, "practice is unrated");
    await photograph(page, "leaderboard");
    await page.goto("/account");
    check((await page.locator("form[action='/account/delete'] input[type=password]").count()) === 1, "deleting asks for the password");
    await photograph(page, "account");
  });

  await step("a guest plays a whole game against a house bot by clicking", async () => {
    const guest = await browser.newContext({ baseURL: base, viewport: { width: 375, height: 812 } });
    const board = await guest.newPage();
    await board.goto("/bots/house-random");
    await board.click("form.play button[type=submit]");
    await board.waitForURL(/\/matches\/\d+$/);
    check((await board.textContent(".you")).includes("You play Black"), "the guest plays Black");
    let clicks = 0;
    for (let i = 0; i < 300; i++) {
      await board.waitForSelector("#legs[data-open='false'], #legs [data-play] .play", { timeout: 20_000 });
      if ((await board.locator("#legs[data-open='false']").count()) === 1) break;
      // The live updates may replace the board between finding a square and clicking it; a
      // click that finds nothing to click is simply tried again.
      const refreshed = board.waitForResponse((r) => r.url().endsWith("/legs"), { timeout: 10_000 }).catch(() => null);
      try {
        await board.locator("#legs [data-play] .play").first().click({ timeout: 3_000 });
      } catch {
        continue;
      }
      await refreshed;
      clicks += 1;
      if (clicks === 3) await photograph(board, "human-game");
    }
    check((await board.locator("#legs[data-open='false']").count()) === 1, "the game ended");
    check(clicks > 10, `${clicks} moves clicked`);
    await guest.close();
  });

  await step("a guest plays Dice Chess against a house bot, a piece and then its square", async () => {
    const guest = await browser.newContext({ baseURL: base, viewport: { width: 375, height: 812 } });
    const board = await guest.newPage();
    await board.goto("/bots/house-greedy");
    await board.selectOption("form.play select[name=variant]", "dice");
    await board.selectOption("form.play select[name=colour]", "first");
    await board.click("form.play button[type=submit]");
    await board.waitForURL(/\/matches\/\d+$/);
    check((await board.textContent(".you")).includes("You play White"), "the guest moves first, as White");
    let played = 0;
    for (let i = 0; i < 60 && played < 6; i++) {
      await board.waitForSelector("#legs[data-open='false'], #legs [data-play] [data-pick]", { timeout: 30_000 });
      if ((await board.locator("#legs[data-open='false']").count()) === 1) break;
      const pick = board.locator("#legs [data-play] [data-pick]").first();
      try {
        check((await board.locator("#legs [data-play] .play.shown").count()) === 0, "no target before a pick");
        await pick.click({ timeout: 3_000 });
        const target = board.locator("#legs [data-play] .play.shown").first();
        await target.waitFor({ timeout: 3_000 });
        const refreshed = board.waitForResponse((r) => r.url().endsWith("/legs"), { timeout: 10_000 }).catch(() => null);
        await target.click({ timeout: 3_000 });
        await refreshed;
      } catch {
        continue; // The board was replaced under the click (the house bot moved): look again.
      }
      played += 1;
      if (played === 2) await photograph(board, "dice-chess");
    }
    check(played >= 3 || (await board.locator("#legs[data-open='false']").count()) === 1, `${played} micro-moves clicked`);
    check((await board.locator("#legs svg.board text").count()) > 32, "the pieces and the dice are drawn");
    await guest.close();
  });

  await step("a guest quick-matches as White; the home page follows the game live", async () => {
    // The home page is open before the game starts; its list of boards picks the game up.
    await page.goto("/");
    const guest = await browser.newContext({ baseURL: base, viewport: { width: 375, height: 812 } });
    const board = await guest.newPage();
    await board.goto("/");
    check((await board.textContent("form.quick legend")).includes("Play a bot now"), "the offer");
    await board.selectOption("form.quick select[name=colour]", "second");
    await board.click("form.quick button[value=start]");
    await board.waitForURL(/\/matches\/\d+$/);
    const id = board.url().split("/").pop();
    check((await board.textContent(".you")).includes("You play White"), "the chosen colour");
    // Walker practises, so quick matching falls back on the house bot, which moves first.
    check((await board.textContent("h1")).includes("house-medium"), await board.textContent("h1"));
    await board.waitForSelector("#legs [data-play] .play", { timeout: 20_000 });
    check((await board.locator("#legs ol.moves li").count()) === 1, "Black moved first");

    const mini = `[data-mini="${id}"]`;
    check((await page.locator(mini).count()) === 0, "the game started after the page was loaded");
    await page.evaluate(() => refreshLive()); // what the page does every 15 seconds
    await page.waitForSelector(`${mini}[data-open='true'] svg.board`);
    const before = await page.getAttribute(`${mini} svg.board`, "aria-label");
    await photograph(page, "home-live");
    await board.locator("#legs [data-play] .play").first().click();
    await page.waitForFunction(
      ([selector, label]) => document.querySelector(`${selector} svg.board`)?.getAttribute("aria-label") !== label,
      [mini, before],
      { timeout: 20_000 },
    );
    await photograph(board, "quick-match");
    await guest.close();
  });
} catch (error) {
  failed = true;
  console.error(`FAIL ${error.stack ?? error}`);
  await page.screenshot({ path: `${shots}/failure.png`, fullPage: true }).catch(() => {});
} finally {
  connector?.kill("SIGINT");
  await browser.close();
}
process.exit(failed ? 1 : 0);
