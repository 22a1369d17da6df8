// Headless Chromium driven through the Chrome DevTools Protocol over a pipe
// (--remote-debugging-pipe: JSON messages ending in a NUL byte on file descriptors 3 and 4), so
// that no WebSocket client and no browser download is needed: Debian's chromium and node.
// WebGL without a GPU: SwiftShader, ANGLE's software renderer.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function findChromium() {
  const candidates = [process.env.CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
  return candidates.find((p) => existsSync(p)) ?? null;
}

export class Browser {
  static async launch({ executable, width = 1024, height = 768 }) {
    const profile = mkdtempSync(join(tmpdir(), 'nbody-chromium-'));
    const args = [
      '--headless=new', '--remote-debugging-pipe', '--no-first-run', '--no-default-browser-check',
      '--disable-extensions', '--disable-background-networking', '--disable-sync', '--mute-audio',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
      `--window-size=${width},${height}`, `--user-data-dir=${profile}`, 'about:blank',
    ];
    // Chromium's sandbox refuses to start as root (CI containers); the page is our own.
    if (process.getuid && process.getuid() === 0) args.unshift('--no-sandbox');
    const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    const browser = new Browser(child, profile);
    const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
    browser.sessionId = sessionId;
    await browser.send('Runtime.enable', {}, sessionId);
    await browser.send('Page.enable', {}, sessionId);
    return browser;
  }

  constructor(child, profile) {
    this.child = child;
    this.profile = profile;
    this.nextId = 1;
    this.pending = new Map();
    this.exceptions = [];   // uncaught exceptions and console errors of the page
    this.stderr = '';
    this.exited = false;
    let buffered = '';
    child.stdio[4].on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      let end;
      while ((end = buffered.indexOf('\0')) >= 0) {
        this.dispatch(JSON.parse(buffered.slice(0, end)));
        buffered = buffered.slice(end + 1);
      }
    });
    child.stderr.on('data', (d) => { this.stderr = (this.stderr + d.toString()).slice(-4000); });
    child.on('exit', (code) => {
      this.exited = true;
      for (const { reject } of this.pending.values()) reject(new Error(`chromium exited (${code}): ${this.stderr}`));
      this.pending.clear();
    });
  }

  dispatch(msg) {
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`)); else p.resolve(msg.result);
    } else if (msg.method === 'Runtime.exceptionThrown') {
      const d = msg.params.exceptionDetails;
      this.exceptions.push(d.exception?.description ?? d.text);
    } else if (msg.method === 'Runtime.consoleAPICalled' && msg.params.type === 'error') {
      this.exceptions.push(msg.params.args.map((a) => a.value ?? a.description).join(' '));
    }
  }

  send(method, params = {}, sessionId = undefined) {
    const id = this.nextId++;
    const message = { id, method, params };
    if (sessionId) message.sessionId = sessionId;
    return new Promise((resolve, reject) => {
      if (this.exited) { reject(new Error(`chromium is not running: ${this.stderr}`)); return; }
      this.pending.set(id, { resolve, reject, method });
      this.child.stdio[3].write(JSON.stringify(message) + '\0');
    });
  }

  // The value of `expression` in the page (awaited when it is a promise).
  async evaluate(expression) {
    const r = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true },
                              this.sessionId);
    if (r.exceptionDetails) throw new Error(`${expression}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
  }

  navigate(url) { return this.send('Page.navigate', { url }, this.sessionId); }

  async screenshot() {
    const { data } = await this.send('Page.captureScreenshot', { format: 'png' }, this.sessionId);
    return Buffer.from(data, 'base64');
  }

  // Polls `expression` until it is truthy; its value, or an error after timeoutMs.
  async waitFor(expression, timeoutMs, what) {
    const start = Date.now();
    for (;;) {
      const v = await this.evaluate(expression);
      if (v) return v;
      if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close() {
    const exited = new Promise((r) => (this.exited ? r() : this.child.once('exit', r)));
    if (!this.exited) {
      this.send('Browser.close').catch(() => {});
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (!this.exited) this.child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

// In the page: the WebGL canvas's pixels that differ from the black background, and a checksum
// of all of them (preserveDrawingBuffer keeps the last frame readable).
export const canvasPixelsExpression = `(() => {
  const src = document.querySelector('#view canvas');
  const c = document.createElement('canvas');
  c.width = src.width; c.height = src.height;
  const g = c.getContext('2d');
  g.drawImage(src, 0, 0);
  const d = g.getImageData(0, 0, c.width, c.height).data;
  let lit = 0, sum = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i] > 8 || d[i + 1] > 8 || d[i + 2] > 8) lit += 1;
    sum = (sum * 31 + d[i] + 7 * d[i + 1] + 13 * d[i + 2]) % 2147483647;
  }
  return { lit, sum, width: c.width, height: c.height };
})()`;
