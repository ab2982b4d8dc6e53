/**
 * get_activity as a bar chart: one bar per bucket, in time order, in inline SVG. Buckets less than
 * 36 hours old (settled: false) are hatched and sit on a shaded band, since their counts can still
 * change; the legend says so.
 */
(() => {
  const { bridge, element, showFailure } = globalThis.viewKit;
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 640;
  const HEIGHT = 240;
  const PLOT = { left: 44, right: 8, top: 12, bottom: 28 };
  const root = document.getElementById("view");
  let input = {};

  function svg(tag, attributes) {
    const made = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes ?? {})) {
      if (value !== undefined) made.setAttribute(name, String(value));
    }
    return made;
  }

  function label(start, interval) {
    const iso = new Date(start * 1000).toISOString();
    if (interval === "hour") return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
    if (interval === "week") return `week of ${iso.slice(0, 10)}`;
    return iso.slice(0, 10);
  }

  function scope() {
    const parts = [];
    if (input.subreddit) parts.push(`r/${input.subreddit}`);
    if (input.author) parts.push(`u/${input.author}`);
    if (input.q) parts.push(`mentioning “${input.q}”`);
    return parts.join(" · ");
  }

  function chart(activity) {
    const { buckets } = activity;
    const plotWidth = WIDTH - PLOT.left - PLOT.right;
    const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
    const step = plotWidth / Math.max(buckets.length, 1);
    const gap = step > 4 ? Math.min(2, step * 0.2) : 0;
    const highest = Math.max(1, ...buckets.map((bucket) => bucket.count));
    const x = (index) => PLOT.left + index * step;
    const y = (count) => PLOT.top + plotHeight - (count / highest) * plotHeight;

    const drawing = svg("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-label": `${activity.kind} per ${activity.interval}, ${buckets.length} buckets`,
      class: "chart",
    });
    const defs = svg("defs");
    const hatch = svg("pattern", {
      id: "unsettled-hatch",
      patternUnits: "userSpaceOnUse",
      width: 6,
      height: 6,
      patternTransform: "rotate(45)",
    });
    hatch.append(svg("rect", { width: 6, height: 6, class: "hatch-ground" }));
    hatch.append(svg("rect", { width: 3, height: 6, class: "hatch-stripe" }));
    defs.append(hatch);
    drawing.append(defs);

    const firstUnsettled = buckets.findIndex((bucket) => !bucket.settled);
    if (firstUnsettled >= 0) {
      drawing.append(
        svg("rect", {
          class: "unsettled-band",
          x: x(firstUnsettled),
          y: PLOT.top,
          width: x(buckets.length) - x(firstUnsettled),
          height: plotHeight,
        }),
      );
    }
    drawing.append(svg("line", { class: "axis", x1: PLOT.left, x2: WIDTH - PLOT.right, y1: y(0), y2: y(0) }));
    for (const [value, anchor] of [
      [0, y(0)],
      [highest, y(highest)],
    ]) {
      const tick = svg("text", { class: "tick", x: PLOT.left - 6, y: anchor + 4, "text-anchor": "end" });
      tick.textContent = String(value);
      drawing.append(tick);
    }

    buckets.forEach((bucket, index) => {
      const group = svg("g", {
        class: bucket.settled ? "bucket" : "bucket unsettled",
        "data-start": bucket.start,
        "data-count": bucket.count,
        "data-settled": bucket.settled,
      });
      const top = y(bucket.count);
      group.append(
        svg("rect", {
          x: x(index) + gap / 2,
          y: top,
          width: Math.max(step - gap, 0.5),
          height: y(0) - top,
        }),
      );
      const title = svg("title");
      const noun = activity.kind === "posts" ? "posts" : "comments";
      title.textContent = `${label(bucket.start, activity.interval)}: ${bucket.count} ${noun}${bucket.settled ? "" : " (not settled: can still change)"}`;
      group.append(title);
      drawing.append(group);
    });

    const first = buckets[0];
    const last = buckets.at(-1);
    if (first && last) {
      const from = svg("text", { class: "tick", x: PLOT.left, y: HEIGHT - 8, "text-anchor": "start" });
      from.textContent = label(first.start, activity.interval);
      const to = svg("text", { class: "tick", x: WIDTH - PLOT.right, y: HEIGHT - 8, "text-anchor": "end" });
      to.textContent = label(last.start, activity.interval);
      drawing.append(from, to);
    }
    return drawing;
  }

  function render(result) {
    if (result.isError || !result.structuredContent?.data?.buckets) {
      showFailure(root, result);
      return;
    }
    const structured = result.structuredContent;
    const activity = structured.data;
    const unsettled = activity.buckets.filter((bucket) => !bucket.settled).length;
    const heading = element(
      "h1",
      "",
      `${activity.kind === "posts" ? "Posts" : "Comments"} per ${activity.interval}`,
    );
    const parts = [heading];
    const where = scope();
    if (where) parts.push(element("p", "scope", where));
    parts.push(
      element(
        "p",
        "summary",
        `${activity.total} in ${activity.buckets.length} buckets${unsettled ? `, ${unsettled} not settled` : ""}.`,
      ),
    );
    parts.push(chart(activity));
    const legend = element("p", "legend");
    legend.append(element("span", "swatch settled"), "settled");
    legend.append(
      element("span", "swatch unsettled"),
      "not settled: less than 36 h old, the count can still change",
    );
    parts.push(legend);
    if (structured.truncated) parts.push(element("p", "note", structured.truncated));
    root.replaceChildren(...parts);
    bridge.reportSize();
  }

  bridge.onToolInput((args) => {
    input = args;
  });
  bridge.onToolResult(render);
  bridge.connect({ name: "reddit-data-api activity chart", version: "1" });
})();
