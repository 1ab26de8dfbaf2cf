// Deterministic multilingual test corpus for the tokenizer goldens and benchmarks.
// Same seed -> same strings on every machine, so the committed goldens can be regenerated exactly.
'use strict';

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ('the of and to in is was for on that with as by at from his her it an were are which ' +
  'this be had not or have but one also their they has its first new after two who other been more ' +
  'capacity server throughput latency tokenizer benchmark request stream kernel batch scheduler ' +
  'Hello World OpenAI HuggingFace McDonald naïve café résumé coöperate façade Zürich São Paulo').split(' ');
const CONTRACTIONS = ["don't", "I'm", "you're", "we've", "she'll", "he'd", "it's", "DON'T", "I'M",
  "They'Re", "can't", "Y'ALL", "o'clock", "rock'n'roll", "'s", "'tis"];
const CODE = ['def f(x):\n    return x * 2\n', 'for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}',
  'const x = {a: 1, "b": [2, 3]};', '#include <vector>\nint main() { return 0; }',
  'SELECT id, name FROM users WHERE age >= 21;', '<div class="x">&nbsp;</div>', 'x += y ** 2 // 3',
  'fn main() -> Result<(), Box<dyn Error>> { Ok(()) }', '    if (a && !b) || c:\n        pass',
  '$ ls -la | grep "*.cpp" > out.txt 2>&1', 'λx. x + 1', '{"key": "value", "n": 12345}'];
const CJK = ['你好世界', '我们正在测试分词器的性能', '東京都渋谷区', 'こんにちは、元気ですか？', 'カタカナとひらがな',
  '한국어 텍스트입니다', '中文，标点符号。', '日本語の文章です。', '漢字', '서울특별시'];
const ARABIC = ['مرحبا بالعالم', 'اللغة العربية جميلة', 'السلام عليكم', 'كتاب', 'שלום עולם', 'עברית'];
const HINDI = ['नमस्ते दुनिया', 'हिन्दी भाषा', 'क्षत्रिय', 'प्रधानमंत्री', 'ভাষা', 'தமிழ்', 'ไทย ภาษา'];
const EMOJI = ['😀', '👍🏽', '👨‍👩‍👧‍👦', '🏳️‍🌈', '❤️', '🇫🇷', '👩🏿‍💻', '🤖', '✨', '🧑‍🤝‍🧑', '1️⃣', '🙂🙃'];
const COMBINING = ['e\u0301', 'a\u0308', 'n\u0303', 'A\u030a', 'o\u0302\u0323', 'Z\u0351\u0352\u0353',
  '\u1e9b\u0323', 'Å', 'ﬁ', '①', 'ｶ', '\u212b', 'ǅ', 'ﬀ'];
const SPACES = [' ', '  ', '   ', '\t', '\n', '\r\n', '\n\n', ' \n ', '\t\t', '\u00a0', '\u3000',
  '\u2009', '      ', '\n\n\n', ' \t \n', '\u200b', '\u2028', '\u0085', '\r'];
const SPECIAL = ['<|im_start|>', '<|im_end|>', '<|endoftext|>', '<s>', '</s>', '<unk>',
  '<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>', '<think>', '</think>', '<tool_call>',
  '<|reserved_special_token_5|>', '<|im_start', 'im_end|>', '< s >', '<0x41>', '<|fim_prefix|>'];
const PUNCT = ['.', ',', '!', '?', '...', '—', '–', '"', "'", '(', ')', '[', ']', ':', ';', '@', '#',
  '%', '&', '*', '~', '`', '«', '»', '¿', '¡', '„', '“', '”', '‘', '’', '§', '€', '$', '£', '¥'];
const MISC = ['\u0000', '\u0001', '\u007f', '\ufeff', '\ufffd', '\u00ad', '\u200d', '\u{10ffff}',
  '\u{1d49c}', '\u{20000}', 'Ω', 'ß', 'İstanbul', 'ΣΑΣ', 'ǈ', 'ŉ', 'ſ', 'K'];

function makeGenerator(seed) {
  const rnd = mulberry32(seed);
  const int = (n) => Math.floor(rnd() * n);
  const pick = (arr) => arr[int(arr.length)];
  const digits = (n) => { let s = ''; for (let i = 0; i < n; ++i) s += String(int(10)); return s; };
  const prose = (n) => {
    const out = [];
    for (let i = 0; i < n; ++i) out.push(rnd() < 0.1 ? pick(CONTRACTIONS) : pick(WORDS));
    let s = out.join(' ');
    if (rnd() < 0.7) s = s[0].toUpperCase() + s.slice(1) + pick(['.', '!', '?', ',', '']);
    return s;
  };
  const pieces = [
    () => prose(1 + int(14)), () => pick(CONTRACTIONS), () => pick(CODE), () => pick(CJK),
    () => pick(ARABIC), () => pick(HINDI), () => pick(EMOJI), () => pick(COMBINING),
    () => pick(SPACES), () => digits(1 + int(rnd() < 0.2 ? 40 : 8)), () => pick(SPECIAL),
    () => pick(PUNCT), () => pick(MISC), () => pick(WORDS).toUpperCase(),
  ];
  // One string: 1..8 pieces, glued by nothing, a space or a random whitespace run.
  return () => {
    const n = 1 + int(8);
    let s = '';
    for (let i = 0; i < n; ++i) {
      const r = rnd();
      if (i > 0) s += r < 0.5 ? ' ' : r < 0.75 ? '' : pick(SPACES);
      s += pick(pieces)();
    }
    if (rnd() < 0.05) s = ' ' + s;
    if (rnd() < 0.05) s += pick(SPACES);
    return s;
  };
}

module.exports = { makeGenerator, mulberry32 };
