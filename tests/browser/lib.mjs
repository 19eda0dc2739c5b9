// Helpers the browser scripts share: a failed check, a timed step, and screenshots at a
// phone's and a desktop's width with no sideways overflow.
import { mkdirSync } from "node:fs";

/// The folder for screenshots (SHOTS), made if missing.
export const shots = process.env.SHOTS;
mkdirSync(shots, { recursive: true });

export function check(condition, message) {
  if (!condition) throw new Error(message);
}

export async function step(name, work) {
  const started = Date.now();
  await work();
  console.log(`ok   ${name} (${Date.now() - started} ms)`);
}

// Screenshots of the page at a phone's and a desktop's width; at the phone's width nothing may
// stick out sideways.
export async function photograph(page, name) {
  for (const [width, height] of [[375, 812], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    check(wide <= width, `${name} is ${wide} px wide at ${width} px`);
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}
