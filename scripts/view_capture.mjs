#!/usr/bin/env node
// Opens a served `nbody view` page in headless Chromium (tests/browser/cdp.mjs), waits for its
// first frame and prints how long that took from the start of the page load; with --screenshot
// FILE it also saves the page as a PNG. For docs/pictures.md ("Viewer"):
//   nbody view RUN --no-open --port 8123 &
//   node scripts/view_capture.mjs http://127.0.0.1:8123/ [--screenshot out.png] [--size 1024x768]
//        [--snapshot K]   (the slider moved to snapshot K before the screenshot)
import { writeFileSync } from 'node:fs';
import { Browser, findChromium, canvasPixelsExpression } from '../tests/browser/cdp.mjs';

const args = process.argv.slice(2);
const url = args.find((a) => a.startsWith('http'));
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : null; };
if (!url) {
  console.error('usage: view_capture.mjs URL [--screenshot FILE] [--size WxH] [--timeout S]');
  process.exit(2);
}
const executable = findChromium();
if (!executable) {
  console.error('view_capture: no chromium (Debian package chromium; or set CHROMIUM)');
  process.exit(2);
}
const [width, height] = (option('--size') ?? '1024x768').split('x').map(Number);
const timeoutMs = 1000 * Number(option('--timeout') ?? 60);

const browser = await Browser.launch({ executable, width, height });
try {
  const started = Date.now();
  await browser.navigate(url);
  await browser.waitFor('window.nbodyView && (window.nbodyView.firstFrameMs !== null || window.nbodyView.error ' +
                        '|| (window.nbodyView.kind === "pic" && [...document.images].every((i) => i.complete)))',
                        timeoutMs, 'the first frame');
  const wall = Date.now() - started;
  const state = await browser.evaluate('window.nbodyView');
  if (state.error) throw new Error(`the page says: ${state.error}`);
  const pixels = state.kind === 'gravity' ? await browser.evaluate(canvasPixelsExpression) : null;
  const status = await browser.evaluate('document.getElementById("status").textContent + " " + document.getElementById("note").textContent');
  console.log(JSON.stringify({ url, first_frame_ms: state.firstFrameMs && Math.round(state.firstFrameMs),
                               wall_ms: wall, marks: state.marks, shown: state.shown, total: state.total, pixels, status }));
  const k = option('--snapshot');
  if (k !== null) {
    await browser.evaluate(`(() => { const s = document.getElementById("time"); s.value = "${Number(k)}"; ` +
                           's.dispatchEvent(new Event("input")); })()');
    await browser.waitFor(`window.nbodyView.snapshot === ${Number(k)} && !window.nbodyView.loading`, timeoutMs,
                          `snapshot ${k}`);
  }
  const file = option('--screenshot');
  if (file) {
    await new Promise((r) => setTimeout(r, 300));
    writeFileSync(file, await browser.screenshot());
  }
} finally {
  await browser.close();
}
