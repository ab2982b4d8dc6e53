/**
 * get_comment_tree as a thread a person reads: each comment with its score, author and depth, a
 * link to its permalink (opened by the host, through `ui/open-link`), and a toggle that collapses
 * or expands its replies. Nodes of kind `more` say how many comments they stand for.
 */
(() => {
  const { bridge, element, showFailure } = globalThis.viewKit;
  const SITE = "https://www.reddit.com";
  const root = document.getElementById("view");
  let input = {};

  function permalinkUrl(permalink) {
    return /^https?:\/\//.test(permalink) ? permalink : `${SITE}${permalink}`;
  }

  const plural = (count, noun) => `${count} ${noun}${count === 1 || count === -1 ? "" : "s"}`;

  /** How many comments hang below a node, at any depth. */
  function descendants(node) {
    return (node.replies ?? []).reduce((sum, reply) => sum + 1 + descendants(reply), 0);
  }

  function comment(node, depth) {
    const data = node.data ?? {};
    const item = element("li", node.kind === "more" ? "node more" : "node comment");
    item.dataset.id = String(data.id ?? "");
    item.dataset.depth = String(depth);
    if (node.kind === "more") {
      item.append(
        element("p", "stub", `${data.count ?? 0} more comments collapsed by the API (depth ${depth})`),
      );
      return item;
    }
    const header = element("div", "meta");
    const replies = node.replies ?? [];
    if (replies.length > 0) {
      const toggle = element("button", "toggle", "−");
      toggle.type = "button";
      toggle.setAttribute("aria-expanded", "true");
      toggle.setAttribute("aria-label", `Collapse the ${descendants(node)} replies to ${data.author}`);
      header.append(toggle);
    }
    header.append(
      element("span", "score", typeof data.score === "number" ? plural(data.score, "point") : "score hidden"),
      element("span", "author", `u/${data.author ?? "[unknown]"}`),
      element("span", "depth", `depth ${depth}`),
    );
    if (data.permalink) {
      const link = element("a", "permalink", "permalink");
      link.href = permalinkUrl(data.permalink);
      link.addEventListener("click", (event) => {
        event.preventDefault();
        bridge.openLink(link.href).catch(() => undefined);
      });
      header.append(link);
    }
    item.append(header, element("p", "body", data.body ?? ""));
    if (replies.length > 0) {
      const list = element("ul", "replies");
      list.id = `replies-${data.id}`;
      for (const reply of replies) list.append(comment(reply, depth + 1));
      const hiddenCount = descendants(node);
      const hidden = element(
        "p",
        "collapsed-note",
        `${hiddenCount} ${hiddenCount === 1 ? "reply" : "replies"} hidden`,
      );
      hidden.hidden = true;
      item.append(list, hidden);
      const toggle = header.querySelector(".toggle");
      toggle.setAttribute("aria-controls", list.id);
      toggle.addEventListener("click", () => {
        const expanded = toggle.getAttribute("aria-expanded") === "true";
        toggle.setAttribute("aria-expanded", String(!expanded));
        toggle.setAttribute(
          "aria-label",
          `${expanded ? "Expand" : "Collapse"} the ${descendants(node)} replies to ${data.author}`,
        );
        toggle.textContent = expanded ? "+" : "−";
        list.hidden = expanded;
        hidden.hidden = !expanded;
        bridge.reportSize();
      });
    }
    return item;
  }

  /** A node's nesting level: the API's own when the result carries it, else counted from the roots. */
  function startDepth(node) {
    return typeof node.data?.depth === "number" ? node.data.depth : 0;
  }

  function render(result) {
    const structured = result.structuredContent;
    if (result.isError || !Array.isArray(structured?.data)) {
      showFailure(root, result);
      return;
    }
    const thread = element("ul", "thread");
    for (const node of structured.data) thread.append(comment(node, startDepth(node)));
    const heading = document.createDocumentFragment();
    heading.append(element("h1", "", `Comments of post ${input.post_id ?? ""}`.trim()));
    const shown = structured.data.reduce((sum, node) => sum + 1 + descendants(node), 0);
    heading.append(element("p", "summary", `${shown} nodes shown.`));
    if (structured.truncated) heading.append(element("p", "note", structured.truncated));
    root.replaceChildren(heading, thread);
    bridge.reportSize();
  }

  bridge.onToolInput((args) => {
    input = args;
  });
  bridge.onToolResult(render);
  bridge.connect({ name: "reddit-data-api thread viewer", version: "1" });
})();
