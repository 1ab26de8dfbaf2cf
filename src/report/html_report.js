// The report page's own script, embedded into every HTML report at build time
// (cmake/embed_assets.cmake; html_report.cpp puts it after uPlot). It reads the embedded JSON
// (#sb-data), draws one uPlot chart per entry of data.charts with every run overlaid, marks each
// run's knee with a dashed line, shades one run's regions (a selector picks which: overlapping fills
// of several runs would be unreadable), and records what it drew in window.sbReport (the browser
// test, tests/browser/check_report.js, reads it).
//
// Reading rules the charts follow (docs/report.md): y-axes start at zero, so a 1 % wobble looks like
// 1 % (a chart whose values all lie within a few percent says so in a note under it); axis sizes are
// measured from the longest tick label, so labels never overlap the numbers; the legend shows values
// without hovering (each series at its run's knee, else at the last stage; the hovered stage while
// the pointer is on the chart).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("sb-data").textContent);
  var dark = !!(window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches);
  var palette = dark
    ? ["#5aa9e6", "#ff6b6b", "#5cd65c", "#b48ef0", "#ffa64d", "#3fd9e6", "#d3a28f", "#f39ad6"]
    : ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  var ink = dark ? "#d8d8d8" : "#222";
  var gridInk = dark ? "rgba(255,255,255,0.10)" : "rgba(0,0,0,0.07)";
  var regionFill = dark
    ? { linear: "rgba(92,214,92,0.10)", knee: "rgba(90,169,230,0.20)", plateau: "rgba(90,169,230,0.12)",
        saturated: "rgba(255,166,77,0.14)", overload: "rgba(255,107,107,0.14)", decline: "rgba(255,107,107,0.14)" }
    : { linear: "rgba(44,160,44,0.08)", knee: "rgba(31,119,180,0.16)", plateau: "rgba(31,119,180,0.10)",
        saturated: "rgba(255,127,14,0.10)", overload: "rgba(214,39,40,0.12)", decline: "rgba(214,39,40,0.12)" };
  // Below this relative spread (max - min) / max a zero-based chart shows a flat line: say so in words.
  var FLAT_SPREAD = 0.05;
  var CHART_HEIGHT = 280;
  window.sbReport = { charts: [], plots: [], shadedRun: data.runs.length ? 0 : -1, setShade: null };
  var plots = window.sbReport.plots;

  var xs = [];
  data.runs.forEach(function (r) { r.x.forEach(function (x) { if (xs.indexOf(x) < 0) xs.push(x); }); });
  xs.sort(function (a, b) { return a - b; });

  function column(run, key) {
    var values = run.metrics[key] || [];
    return xs.map(function (x) {
      var i = run.x.indexOf(x);
      return i < 0 || values[i] === undefined ? null : values[i];
    });
  }

  // The stand-in position of rate-inf stages reads "inf" on the axis.
  // uPlot passes null for ticks it filtered out (too crowded).
  function tickLabel(x) {
    if (x === null || x === undefined) return null;
    return data.unlimited_x !== null && x === data.unlimited_x ? "inf" : String(+x.toPrecision(4));
  }

  function valueText(v, unit) {
    if (v === null || v === undefined || !isFinite(v)) return "n/a";
    var text = Math.abs(v) >= 1000 ? Math.round(v).toLocaleString("en-US") : String(+v.toPrecision(4));
    return text + " " + unit;
  }

  // Compact y tick labels (12k instead of 12,000): narrower axes leave more room for the curves.
  function yTicks(u, splits) {
    return splits.map(function (v) {
      if (v === null || v === undefined) return null;
      return Math.abs(v) >= 10000 ? String(+(v / 1000).toPrecision(4)) + "k" : String(+v.toPrecision(6));
    });
  }

  // Axis thickness from the widest (y) or tallest (x) tick label, so the axis label placed beyond it
  // never covers a number: ticks + gap + text + a margin.
  function axisSize(u, values, axisIdx) {
    var axis = u.axes[axisIdx];
    var cssScale = axis.font[1] / axis.font[2];  // canvas px per CSS px
    var tick = axis.ticks && axis.ticks.show !== false ? axis.ticks.size : 0;
    if (axis.side % 2 === 0) return Math.ceil(tick + axis.gap + axis.font[2] * 1.3 + 4);
    var widest = 0;
    u.ctx.save();
    u.ctx.font = axis.font[0];
    (values || []).forEach(function (v) {
      if (v !== null && v !== undefined) widest = Math.max(widest, u.ctx.measureText(String(v)).width / cssScale);
    });
    u.ctx.restore();
    return Math.ceil(tick + axis.gap + widest + 6);
  }

  // From zero, with a little headroom above the highest value.
  function yRange(u, lo, hi) {
    if (!(hi > 0)) return [0, 1];
    return [0, uPlot.rangeNum(0, hi, 0.1, true)[1]];
  }

  // Region i spans from the midpoint with its left neighbour to the midpoint with its right one.
  function shadeRegions(u, run) {
    var ctx = u.ctx, top = u.bbox.top, height = u.bbox.height;
    run.regions.forEach(function (region, i) {
      var px = function (j) { return u.valToPos(run.x[j], "x", true); };
      var left = i === 0 ? u.bbox.left : (px(i - 1) + px(i)) / 2;
      var right = i === run.x.length - 1 ? u.bbox.left + u.bbox.width : (px(i) + px(i + 1)) / 2;
      ctx.fillStyle = regionFill[region] || "rgba(0,0,0,0)";
      ctx.fillRect(left, top, right - left, height);
    });
  }

  function verticalLine(u, x, color, dash, text, row) {
    var ctx = u.ctx;
    ctx.save();
    ctx.strokeStyle = color;
    ctx.setLineDash(dash);
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, u.bbox.top);
    ctx.lineTo(x, u.bbox.top + u.bbox.height);
    ctx.stroke();
    ctx.fillStyle = color;
    ctx.font = u.axes[0].font[0];
    var nearRightEdge = x + ctx.measureText(text).width + 8 > u.bbox.left + u.bbox.width;
    ctx.textAlign = nearRightEdge ? "right" : "left";
    var lineHeight = u.axes[0].font[1] * 1.2;
    ctx.fillText(text, nearRightEdge ? x - 4 : x + 4, u.bbox.top + lineHeight * (row + 1));
    ctx.restore();
  }

  // Each run's knee on every chart; on the TTFT chart also where TTFT starts rising steeply.
  function markers(spec) {
    return function (u) {
      data.runs.forEach(function (run, r) {
        var color = palette[r % palette.length];
        if (run.knee !== null) verticalLine(u, u.valToPos(run.x[run.knee], "x", true), color, [6, 4], "knee", r);
        if (spec.id === "ttft" && run.ttft_rise !== null)
          verticalLine(u, u.valToPos(run.x[run.ttft_rise], "x", true), color, [2, 3], "TTFT rise",
                       data.runs.length + r);
      });
    };
  }

  // Where a series' legend value is read when the pointer is not on the chart: its run's knee when
  // it has a value there, else the last stage with a value.
  function restingPoint(run, col) {
    if (run.knee !== null) {
      var k = xs.indexOf(run.x[run.knee]);
      if (k >= 0 && col[k] !== null) return { idx: k, why: "knee" };
    }
    for (var i = col.length - 1; i >= 0; i--) if (col[i] !== null) return { idx: i, why: "last stage" };
    return null;
  }

  // The legend: one item per series, swatch (solid or dashed like the line), name, value and where
  // it was read. `update(idx)` shows stage idx of xs for every series, `update(null)` the resting points.
  function makeLegend(spec, entries, box) {
    var legend = document.createElement("div");
    legend.className = "sb-legend";
    var cells = entries.map(function (e) {
      var item = document.createElement("div");
      item.className = "sb-legend-item";
      var swatch = document.createElement("span");
      swatch.className = "sb-swatch";
      swatch.style.borderTop = "3px " + (e.dashed ? "dashed " : "solid ") + e.color;
      var name = document.createElement("span");
      name.className = "sb-name";
      name.textContent = e.name;
      var value = document.createElement("span");
      value.className = "sb-value";
      var at = document.createElement("span");
      at.className = "sb-at";
      item.appendChild(swatch);
      item.appendChild(name);
      item.appendChild(value);
      item.appendChild(at);
      legend.appendChild(item);
      return { value: value, at: at };
    });
    box.appendChild(legend);
    function update(idx) {
      entries.forEach(function (e, n) {
        var p = idx === null || idx === undefined ? e.rest : { idx: idx, why: "" };
        var v = p ? e.col[p.idx] : null;
        cells[n].value.textContent = valueText(v, spec.unit);
        cells[n].at.textContent = p ? "at " + data.x_short + tickLabel(xs[p.idx]) + (p.why ? ", " + p.why : "") : "";
      });
    }
    update(null);
    return update;
  }

  // A zero-based chart of values that barely move shows a flat line, rightly; the note gives the
  // spread in numbers so that "flat" is not mistaken for "no data".
  function flatNote(spec, columns) {
    var lo = Infinity, hi = -Infinity;
    columns.forEach(function (col) {
      col.forEach(function (v) { if (v !== null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    });
    if (!(hi > 0) || (hi - lo) / hi >= FLAT_SPREAD) return null;
    return "flat at this scale: every value lies between " + valueText(lo, spec.unit) + " and " +
           valueText(hi, spec.unit) + " (" + (100 * (hi - lo) / hi).toFixed(1) + " % apart)";
  }

  function chartWidth(container) {
    var available = container.clientWidth || 600;
    return Math.max(260, Math.min(600, available - 4));
  }

  function chartOptions(spec, series, width) {
    var axisStyle = { stroke: ink, grid: { stroke: gridInk, width: 1 }, ticks: { stroke: gridInk, width: 1, size: 6 },
                      gap: 4, labelGap: 2, size: axisSize };
    var xAxis = uPlot.assign({ label: data.x_label, labelSize: 20 }, axisStyle);
    var yAxis = uPlot.assign({ label: spec.y_label, labelSize: 20, values: yTicks }, axisStyle);
    xAxis.splits = function () { return xs; };  // ticks at the tested loads, nothing between
    xAxis.values = function (u, splits) { return splits.map(tickLabel); };
    xAxis.filter = function (u, splits) { return splits; };  // log axes would hide non-decades
    return {
      title: spec.title, width: width, height: CHART_HEIGHT,
      legend: { show: false },  // ours (makeLegend) shows values without hovering
      // The x axis spans exactly the tested loads (a log scale would otherwise pad to the next decade).
      scales: { x: { time: false, distr: data.log_x ? 3 : 1,
                     range: function (u, lo, hi) { return xs.length > 1 ? [xs[0], xs[xs.length - 1]] : [lo, hi]; } },
                y: { range: yRange } },
      axes: [xAxis, yAxis],
      series: series,
      hooks: { drawClear: [function (u) {
                 var r = window.sbReport.shadedRun;
                 if (r >= 0 && r < data.runs.length) shadeRegions(u, data.runs[r]);
               }],
               draw: [markers(spec)] }
    };
  }

  function drawChart(spec, container) {
    var series = [{ label: data.x_label }], columns = [xs], entries = [], points = 0;
    data.runs.forEach(function (run, r) {
      spec.series.forEach(function (m, k) {
        var col = column(run, m.key);
        col.forEach(function (v) { if (v !== null) points++; });
        columns.push(col);
        var color = palette[r % palette.length], name = run.label + " " + m.name;
        series.push({ label: name, stroke: color, width: 2, dash: k === 0 ? undefined : [5, 5], spanGaps: true,
                      points: { show: true, size: 6 } });
        entries.push({ name: name, color: color, dashed: k !== 0, col: col, rest: restingPoint(run, col) });
      });
    });
    var box = document.createElement("div");
    box.className = "chart";
    box.id = "chart-" + spec.id;
    var width = chartWidth(container);
    box.style.width = width + "px";  // legend and note wrap at the chart's width, not beyond it
    container.appendChild(box);
    var update = null;
    var opts = chartOptions(spec, series, width);
    opts.hooks.setCursor = [function (u) { if (update) update(u.cursor.idx); }];
    var u = new uPlot(opts, columns, box);
    plots.push(u);
    update = makeLegend(spec, entries, box);
    var note = flatNote(spec, columns.slice(1));
    if (note) {
      var p = document.createElement("div");
      p.className = "chart-note";
      p.textContent = note;
      box.appendChild(p);
    }
    window.sbReport.charts.push({ id: spec.id, points: points, flatNote: note });
  }

  // Which run's regions are shaded: one choice for every chart, "none" turns shading off.
  function shadeSelector(container) {
    if (data.runs.length < 2) return;
    var label = document.createElement("label");
    label.className = "shade-select";
    label.textContent = "shade regions of ";
    var select = document.createElement("select");
    select.id = "sb-shade";
    data.runs.forEach(function (run, r) { select.add(new Option(run.label, String(r))); });
    select.add(new Option("none", "-1"));
    select.onchange = function () { window.sbReport.setShade(+select.value); };
    label.appendChild(select);
    container.appendChild(label);
  }

  window.sbReport.setShade = function (r) {
    window.sbReport.shadedRun = r;
    var select = document.getElementById("sb-shade");
    if (select) select.value = String(r);
    plots.forEach(function (u) { u.redraw(false, false); });
  };

  // The knee sentences above the charts carry their run's colour, like its curves.
  Array.prototype.forEach.call(document.querySelectorAll(".knee-sentence .swatch"), function (s) {
    var r = +s.parentNode.getAttribute("data-run");
    s.style.borderTop = "3px solid " + palette[r % palette.length];
  });

  window.sbReport.xTicks = xs.map(tickLabel);
  var container = document.getElementById("charts");
  shadeSelector(container);
  data.charts.forEach(function (spec) { drawChart(spec, container); });
  var lastWidth = chartWidth(container);
  window.addEventListener("resize", function () {
    var width = chartWidth(container);
    if (width === lastWidth) return;
    lastWidth = width;
    plots.forEach(function (u) {
      u.root.parentNode.style.width = width + "px";
      u.setSize({ width: width, height: CHART_HEIGHT });
    });
  });
})();
