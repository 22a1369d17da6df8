// The page of `nbody view`: a gravity run's snapshots as points (three.js), a PIC run's images.
// The server's API (src/view/server.hpp): /api/run (JSON), /api/snapshot/K (binary, see
// src/view/point_cloud.hpp), /api/image/NAME.png.
// window.nbodyView tells a test (tests/browser/) what is on the screen.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const state = window.nbodyView = {
  kind: null,         // "gravity" or "pic"
  frames: 0,          // frames drawn
  firstFrameMs: null, // page load to the first frame with points (performance.now())
  snapshot: -1,       // the snapshot on the screen
  time: null,
  shown: 0,
  total: 0,
  loading: false,
  error: null,
  marks: {},          // performance.now() when the run, the first snapshot and the first frame came
};

const $ = (id) => document.getElementById(id);
const slider = $('time');

// The colours of components 0..7 (component 0 is also the one colour of untagged bodies).
const PALETTE = ['#9fc5ff', '#ffb347', '#ff6f6f', '#7dff8f', '#d38cff', '#6ff3ff', '#fff36f', '#ffffff']
  .map((c) => new THREE.Color(c));

function showError(message) {
  state.error = message;
  $('error').textContent = message;
}

async function fetchOk(url) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: ${res.status} ${(await res.text()).trim()}`);
  return res;
}

// The binary layout of src/view/point_cloud.hpp.
function decodeCloud(buffer) {
  const dv = new DataView(buffer);
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 4));
  if (magic !== 'NBV1') throw new Error(`not a point cloud (magic ${JSON.stringify(magic)})`);
  const flags = dv.getUint32(4, true);
  const total = Number(dv.getBigUint64(8, true));
  const n = Number(dv.getBigUint64(16, true));
  const time = dv.getFloat64(24, true);
  const xyz = new Float32Array(buffer, 32, 3 * n);
  const mass = new Float32Array(buffer, 32 + 12 * n, n);
  const component = flags & 1 ? new Uint8Array(buffer, 32 + 16 * n, n) : null;
  return { total, n, time, xyz, mass, component };
}

function formatTime(t) {
  return Math.abs(t) >= 1e4 || (t !== 0 && Math.abs(t) < 1e-3) ? t.toExponential(4) : String(+t.toPrecision(6));
}

// ---- gravity: points --------------------------------------------------------------------------

const vertexShader = `
  attribute float mass;
  attribute float component;
  uniform float uSize;      // world size of a body of the mean mass
  uniform float uMeanMass;
  uniform float uScale;     // pixels per world unit at distance 1
  uniform bool uByComponent;
  uniform vec3 uPalette[8];
  varying vec3 vColor;
  void main() {
    vec4 mv = modelViewMatrix * vec4(position, 1.0);
    gl_Position = projectionMatrix * mv;
    float size = uSize * pow(max(mass, 0.0) / uMeanMass, 1.0 / 3.0);
    gl_PointSize = clamp(size * uScale / max(-mv.z, 1e-6), 1.0, 48.0);
    int c = uByComponent ? int(component) : 0;
    vColor = uPalette[c < 8 ? c : 7];
  }`;
const fragmentShader = `
  uniform float uAlpha;
  varying vec3 vColor;
  void main() {
    vec2 d = gl_PointCoord - 0.5;
    float r2 = dot(d, d);
    if (r2 > 0.25) discard;
    gl_FragColor = vec4(vColor * uAlpha * (1.0 - 2.0 * r2), 1.0);
  }`;

let renderer, scene, camera, controls, points, material;
let fitted = false;
let renderPending = false;

function setupScene() {
  renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  renderer.setSize(window.innerWidth, window.innerHeight);
  renderer.setClearColor(0x000000, 1);
  $('view').appendChild(renderer.domElement);
  scene = new THREE.Scene();
  camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight, 1e-3, 1e3);
  controls = new OrbitControls(camera, renderer.domElement);
  controls.addEventListener('change', requestRender);
  material = new THREE.ShaderMaterial({
    vertexShader, fragmentShader,
    uniforms: {
      uSize: { value: 1 }, uMeanMass: { value: 1 }, uScale: { value: 1 }, uAlpha: { value: 1 },
      uByComponent: { value: true }, uPalette: { value: PALETTE },
    },
    blending: THREE.AdditiveBlending, depthTest: false, depthWrite: false, transparent: true,
  });
  window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    requestRender();
  });
  $('colour').addEventListener('change', () => {
    material.uniforms.uByComponent.value = $('colour').value === 'component';
    requestRender();
  });
  $('size').addEventListener('input', () => { updateSize(); requestRender(); });
}

let systemRadius = 1;

function updateSize() {
  // A few bodies are drawn larger than many: the same area covered at any count.
  const crowd = Math.max(1, Math.cbrt(20000 / Math.max(state.shown, 1)));
  material.uniforms.uSize.value = systemRadius * 0.008 * crowd * Number($('size').value);
  const h = renderer.domElement.height;
  material.uniforms.uScale.value = h / (2 * Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2));
}

// The camera looks at the centre of mass from where the half-mass radius (from at most 20000
// points) fills a third of the view, once: later snapshots keep the view the user chose.
function fitCamera(cloud) {
  let m = 0, cx = 0, cy = 0, cz = 0;
  for (let i = 0; i < cloud.n; ++i) {
    const w = cloud.mass[i];
    m += w; cx += w * cloud.xyz[3 * i]; cy += w * cloud.xyz[3 * i + 1]; cz += w * cloud.xyz[3 * i + 2];
  }
  if (m > 0) { cx /= m; cy /= m; cz /= m; }
  const stride = Math.max(1, Math.floor(cloud.n / 20000));
  const r = [];
  for (let i = 0; i < cloud.n; i += stride) {
    r.push(Math.hypot(cloud.xyz[3 * i] - cx, cloud.xyz[3 * i + 1] - cy, cloud.xyz[3 * i + 2] - cz));
  }
  r.sort((a, b) => a - b);
  systemRadius = r.length ? Math.max(r[Math.floor(0.5 * (r.length - 1))], 1e-30) : 1;
  const distance = 3 * systemRadius / Math.tan(THREE.MathUtils.degToRad(camera.fov) / 2);
  const dir = new THREE.Vector3(0.35, 0.45, 1).normalize();
  controls.target.set(cx, cy, cz);
  camera.position.set(cx + dir.x * distance, cy + dir.y * distance, cz + dir.z * distance);
  camera.near = distance * 1e-4;
  camera.far = distance * 1e3;
  camera.updateProjectionMatrix();
  controls.update();
  fitted = true;
}

function showCloud(cloud) {
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute('position', new THREE.BufferAttribute(cloud.xyz, 3));
  geometry.setAttribute('mass', new THREE.BufferAttribute(cloud.mass, 1));
  geometry.setAttribute('component',
    new THREE.BufferAttribute(cloud.component ?? new Uint8Array(cloud.n), 1));
  if (points) {
    points.geometry.dispose();
    points.geometry = geometry;
  } else {
    points = new THREE.Points(geometry, material);
    points.frustumCulled = false;
    scene.add(points);
  }
  let m = 0;
  for (let i = 0; i < cloud.n; ++i) m += cloud.mass[i];
  material.uniforms.uMeanMass.value = cloud.n > 0 && m > 0 ? m / cloud.n : 1;
  // Additive points: fainter the more there are, so a dense centre does not saturate at once.
  material.uniforms.uAlpha.value = Math.min(1, Math.sqrt(3000 / Math.max(cloud.n, 1)));
  if (!fitted) fitCamera(cloud);
  updateSize();
}

function requestRender() {
  if (renderPending) return;
  renderPending = true;
  requestAnimationFrame(() => {
    renderPending = false;
    renderer.render(scene, camera);
    state.frames += 1;
    if (points) state.marks.rendered ??= performance.now();
    if (state.firstFrameMs === null && points) {
      // The next animation frame comes once this one is on the screen.
      requestAnimationFrame(() => { state.firstFrameMs = performance.now(); });
    }
  });
}

let run = null;
let wanted = 0;
// Snapshot 0 is asked for at once, beside /api/run, so that it arrives while WebGL starts.
let firstSnapshot = null;

function describe(cloud, k) {
  const units = run.units && run.units.name ? ` (${run.units.name} units)` : '';
  $('status').textContent = `t = ${formatTime(cloud.time)}${units} · snapshot ${k + 1} of ${run.snapshots.length}` +
    ` · ${cloud.total.toLocaleString('en')} bodies`;
  $('note').textContent = cloud.n < cloud.total
    ? `showing ${cloud.n.toLocaleString('en')} of them, evenly subsampled, masses scaled to keep the total`
    : '';
}

// Loads snapshot `wanted`; a slider moved during a load asks again once it is done.
async function loadWanted() {
  if (state.loading) return;
  state.loading = true;
  try {
    while (state.snapshot !== wanted) {
      const k = wanted;
      const response = await (k === 0 && firstSnapshot ? firstSnapshot : fetchOk(`/api/snapshot/${k}`));
      firstSnapshot = null;
      state.marks.response ??= performance.now();
      const cloud = decodeCloud(await response.arrayBuffer());
      state.marks.snapshot ??= performance.now();
      Object.assign(state, { snapshot: k, time: cloud.time, shown: cloud.n, total: cloud.total });
      showCloud(cloud);
      describe(cloud, k);
      requestRender();
    }
  } catch (e) {
    showError(String(e.message ?? e));
  } finally {
    state.loading = false;
  }
}

// The component names (from /api/run) in their colours, when the bodies carry two or more.
function showLegend() {
  const legend = $('legend');
  legend.replaceChildren();
  (run.components ?? []).forEach((name, c) => {
    const item = document.createElement('span');
    item.className = 'legend-item';
    item.style.color = '#' + PALETTE[c % PALETTE.length].getHexString();
    item.textContent = `\u25a0 ${name}`;
    legend.appendChild(item);
  });
}

function startGravity() {
  setupScene();
  showLegend();
  state.marks.scene = performance.now();
  slider.max = String(Math.max(run.snapshots.length - 1, 0));
  slider.addEventListener('input', () => { wanted = Number(slider.value); loadWanted(); });
  let playing = null;
  $('play').addEventListener('click', () => {
    if (playing) {
      clearInterval(playing);
      playing = null;
      $('play').innerHTML = '&#9654;';
      return;
    }
    $('play').innerHTML = '&#10074;&#10074;';
    playing = setInterval(() => {
      if (state.loading) return;
      wanted = (state.snapshot + 1) % run.snapshots.length;
      slider.value = String(wanted);
      loadWanted();
    }, 100);
  });
  wanted = 0;
  loadWanted();
}

// ---- PIC: images ------------------------------------------------------------------------------

function startPic() {
  $('colour').parentElement.style.display = 'none';
  $('size').parentElement.style.display = 'none';
  $('play').style.display = 'none';
  const grid = $('images');
  grid.style.display = 'grid';
  const steps = [...new Set(run.images.flatMap((s) => s.frames.map((f) => f.step)))].sort((a, b) => a - b);
  const series = run.images.map((s) => {
    const figure = document.createElement('figure');
    const caption = document.createElement('figcaption');
    const img = document.createElement('img');
    const range = document.createElement('input');
    Object.assign(range, { type: 'range', min: 0, max: s.frames.length - 1, value: 0, step: 1 });
    range.setAttribute('aria-label', s.quantity);
    img.alt = s.quantity;
    const show = (i) => {
      const f = s.frames[i];
      img.src = `/api/image/${encodeURIComponent(f.file)}`;
      caption.textContent = `${s.quantity} · step ${f.step}`;
    };
    range.addEventListener('input', () => show(Number(range.value)));
    figure.append(caption, img, range);
    grid.append(figure);
    show(0);
    return { s, range, show };
  });
  // The main slider moves every quantity to its last image at or before that step.
  slider.max = String(Math.max(steps.length - 1, 0));
  const showStep = (k) => {
    for (const { s, range, show } of series) {
      let i = 0;
      while (i + 1 < s.frames.length && s.frames[i + 1].step <= steps[k]) ++i;
      range.value = String(i);
      show(i);
    }
    state.snapshot = k;
    $('status').textContent = `step ${steps[k]} · ${k + 1} of ${steps.length} · ${run.images.length} quantities`;
  };
  slider.addEventListener('input', () => showStep(Number(slider.value)));
  showStep(0);
}

async function main() {
  try {
    const runResponse = fetchOk('/api/run');
    firstSnapshot = fetchOk('/api/snapshot/0');
    firstSnapshot.catch(() => {});  // a PIC run has none; a gravity run reports it when it waits for it
    run = await (await runResponse).json();
    state.marks.run = performance.now();
    state.kind = run.kind;
    $('title').textContent = `nbody view · ${run.run}`;
    document.title = `nbody view · ${run.run}`;
    if (run.kind === 'pic') startPic(); else startGravity();
  } catch (e) {
    showError(String(e.message ?? e));
  }
}

main();
