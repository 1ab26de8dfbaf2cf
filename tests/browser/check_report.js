#!/usr/bin/env node
// Opens a servebench HTML report in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) and checks: no console errors, every chart has points, a knee marker is present,
// a screenshot is taken whose pixels are not blank, and (with several runs) the region selector
// changes the shading: the first chart's pixels differ between "none", the first and the second run.
// The reading rules (docs/report.md): every legend value is filled in before any hover, no axis
// label box intersects a tick label box (measured from uPlot's own layout and the canvas' text
// metrics), every y-axis starts at 0, a chart whose values lie within 5 % says so in a note, and each
// run's knee sentence appears exactly once, above the charts. --expect-scale-note: the page must say
// that latencies are in scaled time (a demo run). Nothing is fetched but the file itself.
// Usage: check_report.js REPORT.html [SHOT.png] [--expect-scale-note]
// Exit status 0 = all checks passed; the reason of any failure is printed on stderr.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require(path.join(__dirname, "../../tools/node_modules/playwright-core"));

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

function fail(msg) {
  console.error("check_report: " + msg);
  process.exitCode = 1;
}

// Decodes the PNG inside the page and returns the variance of its grey levels.
async function pixelVariance(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let sum = 0, sq = 0, n = 0;
    for (let i = 0; i < px.length; i += 4 * 7) {
      const g = (px[i] + px[i + 1] + px[i + 2]) / 3;
      sum += g; sq += g * g; n++;
    }
    const mean = sum / n;
    return sq / n - mean * mean;
  }, png.toString("base64"));
}

// Picks each shading in the selector and screenshots the first chart; every choice must look different.
// Returns how many were compared (0 for a single-run report, which has no selector).
async function checkShadeSelector(page) {
  const select = page.locator("#sb-shade");
  if ((await select.count()) === 0) return 0;
  const chart = page.locator(".chart canvas").first();
  const shots = [];
  for (const value of ["-1", "0", "1"]) {
    await select.selectOption(value);
    const shaded = await page.evaluate(() => window.sbReport.shadedRun);
    if (shaded !== +value) fail(`selector ${value}: shadedRun is ${shaded}`);
    shots.push((await chart.screenshot()).toString("base64"));
  }
  if (shots[0] === shots[1]) fail("shading the first run's regions changed nothing");
  // Two runs with the same regions at the same loads (e.g. equal knees) are shaded alike, rightly.
  const runs = await page.evaluate(() => JSON.parse(document.getElementById("sb-data").textContent).runs);
  const same = JSON.stringify([runs[0].x, runs[0].regions]) === JSON.stringify([runs[1].x, runs[1].regions]);
  if (!same && shots[1] === shots[2]) fail("shading the second run's regions looks like the first's");
  return shots.length;
}

// Text boxes of each axis' tick labels and of its label, in CSS pixels of the chart's canvas, from
// uPlot's layout (axis._pos, _lpos: where it draws them; uPlot 1.6's drawAxesGrid) and the measured
// text. Returns one line per overlap or clipped label.
async function axisOverlaps(page) {
  return page.evaluate(() => {
    const problems = [];
    window.sbReport.plots.forEach((u, p) => {
      const ctx = u.ctx;
      u.axes.forEach((axis, i) => {
        if (!axis.show || axis.label == null || (axis.side !== 2 && axis.side !== 3)) return;
        const k = axis.font[1] / axis.font[2];  // canvas px per CSS px
        const tick = axis.ticks.show ? axis.ticks.size : 0;
        const where = `chart ${p} axis ${i} (${axis.label})`;
        ctx.save();
        ctx.font = axis.font[0];
        ctx.textBaseline = "top";
        let widest = 0, tallest = 0;
        for (const v of axis._values || []) {
          if (v === null || v === undefined) continue;
          const m = ctx.measureText(String(v));
          widest = Math.max(widest, m.width / k);
          tallest = Math.max(tallest, m.actualBoundingBoxDescent / k);
        }
        ctx.font = axis.labelFont[0];
        ctx.textBaseline = "bottom";
        const labelDepth = ctx.measureText(axis.label).actualBoundingBoxAscent / k;
        ctx.restore();
        if (axis.side === 3) {  // left: ticks right-aligned left of the plot, the rotated label further left
          const tickLeft = axis._pos - tick - axis.gap - widest;
          const labelRight = axis._lpos - axis.labelGap;
          if (labelRight > tickLeft) problems.push(`${where}: label reaches x=${labelRight}, tick labels from ${tickLeft}`);
          if (labelRight - labelDepth < 0) problems.push(`${where}: label cut off at the left edge`);
        } else if (axis.side === 2) {  // bottom: ticks below the plot, the label below them
          const tickBottom = axis._pos + tick + axis.gap + tallest;
          const labelTop = axis._lpos + axis.labelGap;
          if (labelTop < tickBottom) problems.push(`${where}: label starts at y=${labelTop}, tick labels end ${tickBottom}`);
          if (labelTop + labelDepth > u.height) problems.push(`${where}: label cut off at the bottom`);
        }
      });
    });
    return problems;
  });
}

// Legends, y-axes, flat-chart notes, knee sentences and the scaled-time note.
async function checkReadingRules(page, expectScaleNote) {
  const legend = await page.evaluate(() => Array.from(document.querySelectorAll(".sb-legend-item"), (e) => ({
    value: e.querySelector(".sb-value").textContent, at: e.querySelector(".sb-at").textContent })));
  const charts = await page.evaluate(() => window.sbReport.charts);
  const data = await page.evaluate(() => JSON.parse(document.getElementById("sb-data").textContent));
  const expected = data.charts.reduce((n, c) => n + c.series.length, 0) * data.runs.length;
  if (legend.length !== expected) fail(`${legend.length} legend items, expected ${expected}`);
  for (const e of legend)
    if (!/\d/.test(e.value) || !/\d/.test(e.at)) fail(`legend item without a value on load: "${e.value}" "${e.at}"`);
  for (const problem of await axisOverlaps(page)) fail(problem);
  const yMins = await page.evaluate(() => window.sbReport.plots.map((u) => u.scales.y.min));
  yMins.forEach((m, i) => { if (m !== 0) fail(`chart ${charts[i].id}: y-axis starts at ${m}, not 0`); });
  data.charts.forEach((c, i) => {
    const values = data.runs.flatMap((r) => c.series.flatMap((s) => (r.metrics[s.key] || []).filter((v) => v !== null)));
    const lo = Math.min(...values), hi = Math.max(...values);
    const flat = hi > 0 && (hi - lo) / hi < 0.05;
    if (flat !== (charts[i].flatNote !== null)) fail(`chart ${c.id}: spread ${lo}..${hi} but note "${charts[i].flatNote}"`);
  });
  const text = await page.evaluate(() => document.body.innerText);
  const heads = await page.locator(".chart-set .knee-sentence").count();
  if (heads !== data.runs.length) fail(`${heads} knee sentences above the charts for ${data.runs.length} runs`);
  for (const r of data.runs) {
    const sentence = r.label + ": " + r.knee_text;
    const n = text.split(sentence).length - 1;
    if (n !== 1) fail(`the knee sentence "${sentence}" appears ${n} times`);
    const bare = text.split(r.knee_text).length - 1;  // nor without its label (under a chart, in a section)
    if (bare !== data.runs.filter((o) => o.knee_text === r.knee_text).length)
      fail(`"${r.knee_text}" appears ${bare} times`);
  }
  const notes = await page.locator(".scale-note").allInnerTexts();
  if (expectScaleNote && !notes.some((t) => /\d+x faster/.test(t) && /latencies/.test(t)))
    fail("no note that latencies are in scaled time: " + JSON.stringify(notes));
  return { legend: legend.length, notes: notes.length };
}

// Hovering the first chart at the second tested load shows that stage in its legend; leaving the
// chart brings back the resting values.
async function checkHover(page) {
  const at = () => page.evaluate(() => document.querySelector("#charts .chart .sb-at").textContent);
  const resting = await at();
  await page.locator("#charts .chart").first().scrollIntoViewIfNeeded();
  const target = await page.evaluate(() => {
    const u = window.sbReport.plots[0], box = u.over.getBoundingClientRect();
    const data = JSON.parse(document.getElementById("sb-data").textContent);
    return { x: box.left + u.valToPos(u.data[0][1], "x"), y: box.top + box.height / 2,
             want: "at " + data.x_short + window.sbReport.xTicks[1] };
  });
  await page.mouse.move(target.x, target.y);
  const hovered = await at();
  if (hovered !== target.want) fail(`hovering the second stage shows "${hovered}", expected "${target.want}"`);
  await page.mouse.move(1, 1);
  const left = await at();
  if (left !== resting) fail(`after leaving the chart the legend shows "${left}", not "${resting}"`);
}

async function main() {
  const args = process.argv.slice(2).filter((a) => !a.startsWith("--"));
  const expectScaleNote = process.argv.includes("--expect-scale-note");
  const report = path.resolve(args[0] || "");
  const shot = args[1] || path.join(os.tmpdir(), "servebench-report.png");
  if (!fs.existsSync(report)) return fail("no report file " + report);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "sb-chromium-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium", headless: true, args: FLAGS, viewport: { width: 1300, height: 900 } });
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    // Offline: the page may load nothing but itself (and data: URLs it makes).
    const fetched = [];
    page.on("request", (r) => { if (!/^(file|data|blob):/.test(r.url())) fetched.push(r.url()); });
    await page.goto("file://" + report, { waitUntil: "load" });
    await page.waitForFunction(() => window.sbReport && window.sbReport.charts.length > 0, null, { timeout: 10000 });
    const charts = await page.evaluate(() => window.sbReport.charts);
    const canvases = await page.locator(".chart canvas").count();
    if (errors.length) fail("console errors: " + errors.join(" | "));
    if (fetched.length) fail("the page fetched from outside: " + fetched.join(" "));
    if (canvases < charts.length) fail(`only ${canvases} canvases for ${charts.length} charts`);
    for (const c of charts) if (!(c.points > 0)) fail(`chart ${c.id} has no points`);
    const rules = await checkReadingRules(page, expectScaleNote);
    await checkHover(page);
    const png = await page.screenshot({ path: shot, fullPage: true });
    const variance = await pixelVariance(page, png);
    if (png.length < 20000) fail(`screenshot too small (${png.length} bytes)`);
    if (!(variance > 100)) fail(`screenshot looks blank (grey-level variance ${variance.toFixed(1)})`);
    const ticks = await page.evaluate(() => ({ ticks: window.sbReport.xTicks,
      unlimited: JSON.parse(document.getElementById("sb-data").textContent).unlimited_x }));
    if (ticks.unlimited !== null && ticks.ticks[ticks.ticks.length - 1] !== "inf")
      fail("the rate-inf stage is not labelled inf on the x axis: " + ticks.ticks.join(" "));
    const shades = await checkShadeSelector(page);
    if (errors.length) fail("console errors after changing the shading: " + errors.join(" | "));
    console.log(`check_report: ${charts.length} charts, ${shades} shadings compared, ` +
                `x ticks ${await page.evaluate(() => window.sbReport.xTicks.join(" "))}, ` +
                `${rules.legend} legend values, ${rules.notes} scale notes, screenshot ${png.length} bytes, ` +
                `variance ${variance.toFixed(0)}`);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => fail(e.stack || String(e)));
