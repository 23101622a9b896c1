// Draws the app icons (PNG, RGBA) with nothing but Node's zlib: a teal rounded square with a white
// "E" and an amber spark. `node scripts/make-icons.mjs` writes public/icons/*.png and favicon.svg.
// Shapes are sampled 4×4 per pixel for smooth edges. Maskable icons are full-bleed with the mark
// inside the 80 % safe zone.
import { deflateSync } from "node:zlib";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "public", "icons");
mkdirSync(out, { recursive: true });

const TEAL_TOP = [20, 140, 128];
const TEAL_BOTTOM = [10, 92, 86];
const WHITE = [255, 255, 255];
const AMBER = [251, 191, 36];

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function inRoundRect(x, y, x0, y0, x1, y1, r) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/** The mark in unit coordinates (0..1) of its box: an "E" of rounded bars and a spark. */
function mark(u, v) {
  const bar = 0.15;
  const r = 0.05;
  if (inRoundRect(u, v, 0.2, 0.18, 0.2 + bar, 0.82, r)) return WHITE; // stem
  if (inRoundRect(u, v, 0.2, 0.18, 0.72, 0.18 + bar, r)) return WHITE; // top
  if (inRoundRect(u, v, 0.2, 0.5 - bar / 2, 0.62, 0.5 + bar / 2, r)) return WHITE; // middle
  if (inRoundRect(u, v, 0.2, 0.82 - bar, 0.72, 0.82, r)) return WHITE; // bottom
  if ((u - 0.8) ** 2 + (v - 0.5) ** 2 <= 0.085 ** 2) return AMBER; // spark
  return null;
}

function draw(size, { maskable }) {
  const buf = Buffer.alloc(size * size * 4);
  const S = 4;
  // "any": rounded square with transparent corners; maskable: full bleed, mark in the safe zone.
  const markBox = maskable ? [0.2, 0.8] : [0.14, 0.86];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const px = (x + (sx + 0.5) / S) / size;
          const py = (y + (sy + 0.5) / S) / size;
          const inBg = maskable || inRoundRect(px, py, 0.02, 0.02, 0.98, 0.98, 0.2);
          if (!inBg) continue;
          const t = py;
          let col = [0, 1, 2].map((i) => TEAL_TOP[i] * (1 - t) + TEAL_BOTTOM[i] * t);
          const [m0, m1] = markBox;
          const u = (px - m0) / (m1 - m0);
          const v = (py - m0) / (m1 - m0);
          const m = u >= 0 && u <= 1 && v >= 0 && v <= 1 ? mark(u, v) : null;
          if (m) col = m;
          r += col[0];
          g += col[1];
          b += col[2];
          a += 255;
        }
      }
      const n = S * S;
      const i = (y * size + x) * 4;
      const cover = a / n;
      // Premultiplied sums → straight alpha.
      buf[i] = cover ? Math.round(r / (a / 255)) : 0;
      buf[i + 1] = cover ? Math.round(g / (a / 255)) : 0;
      buf[i + 2] = cover ? Math.round(b / (a / 255)) : 0;
      buf[i + 3] = Math.round(cover);
    }
  }
  return png(size, buf);
}

const targets = [
  ["icon-192.png", 192, false],
  ["icon-512.png", 512, false],
  ["icon-maskable-512.png", 512, true],
  ["apple-touch-icon.png", 180, true],
];
for (const [name, size, maskable] of targets) {
  const bytes = draw(size, { maskable });
  writeFileSync(path.join(out, name), bytes);
  console.log(`${name} ${size}×${size} ${bytes.length} bytes`);
}

const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
  <defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="rgb(${TEAL_TOP})"/><stop offset="1" stop-color="rgb(${TEAL_BOTTOM})"/></linearGradient></defs>
  <rect x="2" y="2" width="96" height="96" rx="20" fill="url(#g)"/>
  <g fill="#fff">
    <rect x="28.4" y="26.96" width="10.8" height="46.08" rx="3.6"/>
    <rect x="28.4" y="26.96" width="37.44" height="10.8" rx="3.6"/>
    <rect x="28.4" y="44.6" width="30.24" height="10.8" rx="3.6"/>
    <rect x="28.4" y="62.24" width="37.44" height="10.8" rx="3.6"/>
  </g>
  <circle cx="71.6" cy="50" r="6.12" fill="rgb(${AMBER})"/>
</svg>
`;
writeFileSync(path.join(out, "favicon.svg"), svg);
console.log("favicon.svg");
