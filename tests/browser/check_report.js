#!/usr/bin/env node
// Opens a servebench HTML report in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) and checks: no console errors, every chart has points, a knee marker is present,
// a screenshot is taken whose pixels are not blank, and (with several runs) the region selector
// changes the shading: the first chart's pixels differ between "none", the first and the second run.
// Usage: check_report.js REPORT.html [SHOT.png]
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

async function main() {
  const report = path.resolve(process.argv[2] || "");
  const shot = process.argv[3] || path.join(os.tmpdir(), "servebench-report.png");
  if (!fs.existsSync(report)) return fail("no report file " + report);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "sb-chromium-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium", headless: true, args: FLAGS, viewport: { width: 1300, height: 900 } });
  try {
    const page = ctx.pages()[0] || (await ctx.newPage());
    const errors = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto("file://" + report, { waitUntil: "load" });
    await page.waitForFunction(() => window.sbReport && window.sbReport.charts.length > 0, null, { timeout: 10000 });
    const charts = await page.evaluate(() => window.sbReport.charts);
    const canvases = await page.locator(".chart canvas").count();
    const markers = await page.locator(".knee-marker").count();
    if (errors.length) fail("console errors: " + errors.join(" | "));
    if (canvases < charts.length) fail(`only ${canvases} canvases for ${charts.length} charts`);
    for (const c of charts) if (!(c.points > 0)) fail(`chart ${c.id} has no points`);
    if (markers === 0 || !charts.every((c) => c.knees > 0)) fail("knee marker missing");
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
                `${markers} knee markers, screenshot ${png.length} bytes, ` +
                `variance ${variance.toFixed(0)}`);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((e) => fail(e.stack || String(e)));
