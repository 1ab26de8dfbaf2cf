// The report page's own script, embedded into every HTML report at build time
// (cmake/embed_assets.cmake; html_report.cpp puts it after uPlot). It reads the embedded JSON
// (#sb-data), draws one uPlot chart per metric group with every run overlaid, marks each run's knee
// with a dashed line, shades one run's regions (a selector picks which: overlapping fills of several
// runs would be unreadable), and records what it drew in window.sbReport (the browser test,
// tests/report/html_browser_test.cpp, reads it).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("sb-data").textContent);
  var palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  var regionFill = { linear: "rgba(44,160,44,0.08)", plateau: "rgba(31,119,180,0.10)", decline: "rgba(214,39,40,0.12)" };
  var charts = [
    { id: "rps", title: "Requests/s", unit: "req/s", metrics: [["request_throughput", "RPS"]] },
    { id: "tokens", title: "Tokens/s", unit: "tok/s",
      metrics: [["output_throughput", "output"], ["total_token_throughput", "total"]] },
    { id: "ttft", title: "TTFT", unit: "ms", metrics: [["ttft_p50", "p50"], ["ttft_p99", "p99"], ["ttft_intended_p99", "p99 from intended send (open loop)"]] },
    { id: "tpot", title: "TPOT p50", unit: "ms", metrics: [["tpot_p50", "p50"]] },
    { id: "itl", title: "ITL p99", unit: "ms", metrics: [["itl_p99", "p99"]] }
  ];
  window.sbReport = { charts: [], shadedRun: data.runs.length ? 0 : -1, setShade: null };
  var plots = [];

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
    var nearRightEdge = x + ctx.measureText(text).width + 8 > u.bbox.left + u.bbox.width;
    ctx.textAlign = nearRightEdge ? "right" : "left";
    ctx.fillText(text, nearRightEdge ? x - 4 : x + 4, u.bbox.top + 12 + 12 * row);
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

  function drawChart(spec, container) {
    var series = [{ label: data.x_label }], columns = [xs], points = 0;
    data.runs.forEach(function (run, r) {
      spec.metrics.forEach(function (m, k) {
        var col = column(run, m[0]);
        col.forEach(function (v) { if (v !== null) points++; });
        columns.push(col);
        series.push({ label: run.label + " " + m[1], stroke: palette[r % palette.length], width: 2,
                      dash: k === 0 ? undefined : [5, 5], spanGaps: true, points: { show: true, size: 6 } });
      });
    });
    var box = document.createElement("div");
    box.className = "chart";
    box.id = "chart-" + spec.id;
    container.appendChild(box);
    var opts = {
      title: spec.title, width: 600, height: 300,
      // The axis spans exactly the tested loads (a log scale would otherwise pad to the next decade).
      scales: { x: { time: false, distr: data.log_x ? 3 : 1,
                     range: function (u, lo, hi) { return xs.length > 1 ? [xs[0], xs[xs.length - 1]] : [lo, hi]; } } },
      axes: [{ label: data.x_label }, { label: spec.unit }],
      series: series,
      hooks: { drawClear: [function (u) {
                 var r = window.sbReport.shadedRun;
                 if (r >= 0 && r < data.runs.length) shadeRegions(u, data.runs[r]);
               }],
               draw: [markers(spec)] }
    };
    opts.axes[0].splits = function () { return xs; };  // ticks at the tested loads, nothing between
    opts.axes[0].values = function (u, splits) { return splits.map(tickLabel); };
    opts.axes[0].filter = function (u, splits) { return splits; };  // log axes would hide non-decades
    plots.push(new uPlot(opts, columns, box));
    var caption = document.createElement("div");
    caption.className = "caption";
    var knees = 0;
    data.runs.forEach(function (run) {
      var span = document.createElement("span");
      if (run.knee !== null) { span.className = "knee-marker"; knees++; }
      span.textContent = run.label + ": " + run.knee_text;
      caption.appendChild(span);
    });
    box.appendChild(caption);
    window.sbReport.charts.push({ id: spec.id, points: points, knees: knees });
  }

  // The stand-in position of rate-inf stages reads "inf" on the axis.
  // uPlot passes null for ticks it filtered out (too crowded).
  function tickLabel(x) {
    if (x === null || x === undefined) return null;
    return data.unlimited_x !== null && x === data.unlimited_x ? "inf" : String(+x.toPrecision(4));
  }

  // Which run's regions are shaded: one choice for every chart, "none" turns shading off.
  function shadeSelector(container) {
    if (data.runs.length < 2) return;
    var label = document.createElement("label");
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

  window.sbReport.xTicks = xs.map(tickLabel);
  var container = document.getElementById("charts");
  shadeSelector(container);
  charts.forEach(function (spec) { drawChart(spec, container); });
})();
