/**
 * An export's progress (start_export, get_export): its state, pages done of the quoted pages, rows,
 * credits spent of the ceiling, and once done its file and manifest. While the export works, and
 * when the host relays tool calls, the view follows it with get_export (free) every few seconds.
 */
(() => {
  const { bridge, element, showFailure } = globalThis.viewKit;
  const FOLLOW_EVERY_MS = 2000;
  const WORKING = new Set(["queued", "running", "paused"]);
  const root = document.getElementById("view");
  let following;

  function row(list, name, value) {
    const term = element("dt", "", name);
    const detail = element("dd", "", value);
    detail.dataset.field = name.toLowerCase().replace(/\s+/g, "-");
    list.append(term, detail);
  }

  function render(result) {
    const structured = result.structuredContent;
    if (result.isError || !structured?.export) {
      showFailure(root, result);
      return;
    }
    const job = structured.export;
    const { progress, quote } = job;
    const heading = element("h1", "", `Export ${job.id}`);
    const state = element("p", `state state-${job.state}`, job.state);
    state.dataset.state = job.state;
    const bar = element("progress");
    bar.max = 100;
    bar.value = job.state === "done" ? 100 : progress.percent;
    bar.setAttribute("aria-label", `${bar.value}% of the window`);
    const facts = element("dl", "facts");
    row(facts, "Pages", `${progress.pages_done} of about ${quote.estimated_pages}`);
    row(facts, "Rows", `${progress.rows_done} of about ${quote.estimated_rows}`);
    row(facts, "Credits", `${progress.credits_spent} spent, at most ${quote.ceiling_credits}`);
    if (WORKING.has(job.state)) {
      const left = Math.max(0, Math.round(quote.eta_seconds * (1 - progress.percent / 100)));
      row(facts, "Time left", `about ${left} s`);
    }
    if (structured.manifest)
      row(facts, "File", `${structured.manifest.rows} rows, ${structured.manifest.bytes} bytes`);
    if (structured.file_url) row(facts, "Download", `${structured.file_url} (with the same API key)`);
    const parts = [heading, state, bar, facts];
    if (job.reason) parts.push(element("p", "note", job.reason));
    if (job.state === "quoted")
      parts.push(element("p", "note", "Only a quote: nothing runs until it is started."));
    root.replaceChildren(...parts);
    bridge.reportSize();
    follow(job);
  }

  function follow(job) {
    clearTimeout(following);
    if (!WORKING.has(job.state) || !bridge.canCallTools()) return;
    following = setTimeout(async () => {
      try {
        render(await bridge.callTool("get_export", { id: job.id }));
      } catch {
        follow(job);
      }
    }, FOLLOW_EVERY_MS);
  }

  bridge.onToolResult(render);
  bridge.connect({ name: "reddit-data-api export progress", version: "1" });
})();
