// `nbody view` in a real browser (ctest browser.viewer): a small run with a few snapshots is
// served, its API checked (fields, binary sizes, a subsampled snapshot keeps the total mass), the
// page loaded in headless Chromium (SwiftShader WebGL) until its first frame, the canvas read
// back (bodies drawn: pixels other than the background), the time slider moved and the frame
// checked to have changed (the time shown and the pixels).
//   node viewer_test.mjs NBODY WORK_DIR          exit 0 pass, 77 skipped (no chromium), 1 fail
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Browser, findChromium, canvasPixelsExpression } from './cdp.mjs';

const [nbody, work] = process.argv.slice(2);
const webDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'web');
const executable = findChromium();
if (!executable) {
  console.log('skipped: no chromium (Debian package chromium, installed by scripts/setup; or set CHROMIUM)');
  process.exit(77);
}
if (!existsSync(join(webDir, 'node_modules', 'three', 'build', 'three.module.js'))) {
  console.log(`skipped: three.js is not installed in ${webDir} (scripts/setup runs npm ci there)`);
  process.exit(77);
}

function check(condition, what) {
  if (!condition) throw new Error(`check failed: ${what}`);
  console.log(`ok: ${what}`);
}

// Starts `nbody view` and resolves with its child process and the address it printed.
function startView(run, extra = []) {
  const child = spawn(nbody, ['view', run, '--no-open', '--port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error(`nbody view printed no address: ${out}${err}`)), 20000);
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve({ child, url: m[0] }); }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`nbody view exited (${code}): ${err.trim()}`)); });
  });
}

function stopView(view) {
  view.child.removeAllListeners('exit');
  return new Promise((resolve) => {
    view.child.on('exit', (code, signal) => resolve({ code, signal }));
    view.child.kill('SIGTERM');
  });
}

function header(buffer) {
  const dv = new DataView(buffer);
  return {
    magic: String.fromCharCode(...new Uint8Array(buffer, 0, 4)), flags: dv.getUint32(4, true),
    total: Number(dv.getBigUint64(8, true)), n: Number(dv.getBigUint64(16, true)), time: dv.getFloat64(24, true),
  };
}
const massSum = (buffer, n) => new Float32Array(buffer, 32 + 12 * n, n).reduce((a, b) => a + b, 0);

async function checkApi(run) {
  const full = await startView(run);
  const sub = await startView(run, ['--max-points', '700']);
  try {
    const b0 = await (await fetch(`${full.url}api/snapshot/0`)).arrayBuffer();
    const info = await (await fetch(`${full.url}api/run`)).json();
    check(info.kind === 'gravity' && info.max_points === 1000000, '/api/run: kind gravity, max_points 1000000');
    check(info.units && info.units.name === 'henon', '/api/run: units henon');
    check(Array.isArray(info.components), '/api/run: components');
    check(info.snapshots.length === 4, `/api/run: 4 snapshots (${info.snapshots.length})`);
    check(info.snapshots.every((s, i) => s.index === i && s.file === `snapshot_00${i}.hdf5`), '/api/run: indices, files');
    check(info.snapshots.every((s, i) => i === 0 || s.time > info.snapshots[i - 1].time), '/api/run: times increase');
    check(info.snapshots[0].count === 2000, '/api/run: the count of a snapshot read');
    const h = header(b0);
    check(h.magic === 'NBV1' && h.total === 2000 && h.n === 2000 && h.time === 0, 'snapshot 0: header');
    check(b0.byteLength === 32 + 16 * 2000, `snapshot 0: ${b0.byteLength} bytes = 32 + 16 n`);
    const total = massSum(b0, 2000);
    const b3 = await (await fetch(`${sub.url}api/snapshot/3`)).arrayBuffer();
    const h3 = header(b3);
    check(h3.total === 2000 && h3.n === 700 && b3.byteLength === 32 + 16 * 700, 'subsampled snapshot: 700 of 2000 points');
    check(Math.abs(massSum(b3, 700) - total) < 1e-5 * total, `subsampled snapshot: total mass kept (${massSum(b3, 700)} vs ${total})`);
    check((await fetch(`${full.url}api/snapshot/4`)).status === 404, 'snapshot 4: 404');
    check((await fetch(`${full.url}api/image/x.png`)).status === 404, 'an image not in the run: 404');
  } finally {
    const s1 = await stopView(full);
    await stopView(sub);
    check(s1.code === 0, `nbody view ends with status 0 on SIGTERM (${s1.code} ${s1.signal})`);
  }
}

async function checkPage(browser, run) {
  const view = await startView(run);
  try {
    await browser.navigate(view.url);
    await browser.waitFor('window.nbodyView && (window.nbodyView.firstFrameMs !== null || window.nbodyView.error)',
                          30000, 'the first frame');
    const first = await browser.evaluate('window.nbodyView');
    check(first.error === null, `no error on the page (${first.error})`);
    console.log(`first frame ${Math.round(first.firstFrameMs)} ms after the page load began`);
    const status0 = await browser.evaluate('document.getElementById("status").textContent');
    check(/^t = 0 .*snapshot 1 of 4 · 2,000 bodies/.test(status0), `status line: "${status0}"`);
    const p0 = await browser.evaluate(canvasPixelsExpression);
    check(p0.lit > 200, `the first frame draws bodies (${p0.lit} of ${p0.width}x${p0.height} pixels lit)`);

    const frames = first.frames;
    await browser.evaluate('(() => { const s = document.getElementById("time"); s.value = "3"; ' +
                           's.dispatchEvent(new Event("input")); })()');
    await browser.waitFor(`window.nbodyView.snapshot === 3 && !window.nbodyView.loading && window.nbodyView.frames > ${frames}`,
                          20000, 'snapshot 4 drawn');
    await browser.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    const status3 = await browser.evaluate('document.getElementById("status").textContent');
    check(status3 !== status0 && /snapshot 4 of 4/.test(status3) && !/^t = 0 /.test(status3),
          `the slider changes the time shown ("${status3}")`);
    const p3 = await browser.evaluate(canvasPixelsExpression);
    check(p3.lit > 200 && p3.sum !== p0.sum, `the slider changes the frame (${p3.lit} pixels lit, checksum ${p0.sum} -> ${p3.sum})`);
    check(browser.exceptions.length === 0, `no exceptions or console errors (${browser.exceptions.join('; ')})`);
  } finally {
    await stopView(view);
  }
}

// A w x h PNG of one colour (RGB), for a PIC run's images/ without running PIC.
function png(w, h, [r, g, b]) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => { let c = 0xffffffff; for (const x of buf) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0); ihdr.writeUInt32BE(h, 4); ihdr[8] = 8; ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: w }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
                        chunk('IDAT', deflateSync(pixels)), chunk('IEND', Buffer.alloc(0))]);
}

// A PIC run's images: one figure per quantity, the main slider moves them all.
async function checkPicPage(browser, work) {
  const run = join(work, 'pic');
  mkdirSync(join(run, 'images'), { recursive: true });
  writeFileSync(join(run, 'images', 'Ey_00000000.png'), png(40, 30, [255, 0, 0]));
  writeFileSync(join(run, 'images', 'Ey_00000010.png'), png(40, 30, [0, 0, 255]));
  writeFileSync(join(run, 'images', 'density_electron_00000010.png'), png(40, 30, [0, 255, 0]));
  const view = await startView(run);
  browser.exceptions.length = 0;
  const imagesLoaded = '[...document.images].length === 2 && [...document.images].every((i) => i.complete && i.naturalWidth === 40)';
  try {
    await browser.navigate(view.url);
    await browser.waitFor(`window.nbodyView && window.nbodyView.kind === "pic" && ${imagesLoaded}`, 20000, 'the PIC images');
    const captions0 = await browser.evaluate('[...document.querySelectorAll("figcaption")].map((c) => c.textContent).join(" | ")');
    check(captions0 === 'Ey · step 0 | density_electron · step 10', `PIC page: one figure per quantity ("${captions0}")`);
    await browser.evaluate('(() => { const s = document.getElementById("time"); s.value = "1"; s.dispatchEvent(new Event("input")); })()');
    await browser.waitFor(imagesLoaded, 20000, 'the PIC images at step 10');
    const src = await browser.evaluate('document.images[0].getAttribute("src")');
    const status = await browser.evaluate('document.getElementById("status").textContent');
    check(src === '/api/image/Ey_00000010.png' && /^step 10 /.test(status), `PIC page: the slider moves to step 10 ("${status}", ${src})`);
    check(browser.exceptions.length === 0, `PIC page: no exceptions or console errors (${browser.exceptions.join('; ')})`);
  } finally {
    await stopView(view);
  }
}

const started = Date.now();
try {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const run = join(work, 'run');
  // Four snapshots, t = 0 .. 1.5: the bodies move between them.
  const r = spawnSync(nbody, ['run', '--ic', 'plummer', '-n', '2000', '--dt', '0.05', '--steps', '30',
                              '--snapshot-every', '10', '--out', run], { encoding: 'utf8' });
  check(r.status === 0, `nbody run wrote a test run (${r.status} ${r.stderr})`);
  await checkApi(run);
  const browser = await Browser.launch({ executable, width: 640, height: 480 });
  try {
    await checkPage(browser, run);
    await checkPicPage(browser, work);
  } finally {
    await browser.close();
  }
  console.log(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(`FAILED: ${e.stack ?? e}`);
  process.exit(1);
}
