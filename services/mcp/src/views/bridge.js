/**
 * The view's side of the Apps protocol (io.modelcontextprotocol/ui): JSON-RPC 2.0 over postMessage
 * with the host's window, the view's only channel. It asks `ui/initialize`, says
 * `ui/notifications/initialized`, hands the tool's arguments and result to the view, reports the
 * view's size, and relays what the view asks of the host (opening a link, calling a tool).
 * No fetch, no XHR, no WebSocket: the resource's CSP forbids them, and the view needs none.
 */
const appsBridge = (() => {
  const PROTOCOL_VERSION = "2026-01-26";
  const METHOD_NOT_FOUND = -32601;
  const host = window.parent;
  const pending = new Map();
  const listeners = { toolInput: [], toolResult: [], hostContext: [] };
  let nextId = 1;
  let hostCapabilities = {};

  const post = (message) => host.postMessage({ jsonrpc: "2.0", ...message }, "*");

  function request(method, params) {
    const id = nextId;
    nextId += 1;
    post({ id, method, params });
    return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
  }

  const notify = (method, params) => post({ method, params });

  function answerHost(message) {
    // The host may ask the view to tear down, or ping it; the view holds nothing to save.
    if (message.method === "ui/resource-teardown" || message.method === "ping") {
      post({ id: message.id, result: {} });
      return;
    }
    post({
      id: message.id,
      error: { code: METHOD_NOT_FOUND, message: `Method not found: ${message.method}` },
    });
  }

  const NOTIFICATIONS = {
    "ui/notifications/tool-input": (params) => emit("toolInput", params.arguments ?? {}),
    "ui/notifications/tool-result": (params) => emit("toolResult", params),
    "ui/notifications/host-context-changed": (params) => emit("hostContext", params),
    "ui/notifications/tool-cancelled": (params) =>
      emit("toolResult", {
        isError: true,
        content: [
          { type: "text", text: `The tool call was cancelled${params.reason ? `: ${params.reason}` : ""}.` },
        ],
      }),
  };

  function emit(kind, value) {
    for (const listener of listeners[kind]) listener(value);
  }

  window.addEventListener("message", (event) => {
    if (event.source !== host) return;
    const message = event.data;
    if (message?.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
      return;
    }
    if (message.id !== undefined) {
      answerHost(message);
      return;
    }
    NOTIFICATIONS[message.method]?.(message.params ?? {});
  });

  let lastHeight = 0;
  function reportSize() {
    const height = Math.ceil(document.documentElement.scrollHeight);
    if (height === lastHeight) return;
    lastHeight = height;
    notify("ui/notifications/size-changed", {
      width: Math.ceil(document.documentElement.scrollWidth),
      height,
    });
  }

  function applyTheme(context) {
    if (context?.theme === "dark" || context?.theme === "light")
      document.documentElement.dataset.theme = context.theme;
  }

  return {
    onToolInput: (listener) => listeners.toolInput.push(listener),
    onToolResult: (listener) => listeners.toolResult.push(listener),
    /** Whether the host relays the view's tool calls to the server (`serverTools`). */
    canCallTools: () => hostCapabilities.serverTools !== undefined,
    callTool: (name, args) => request("tools/call", { name, arguments: args }),
    /** Links leave through the host, which decides how (the sandbox forbids the view to navigate). */
    openLink: (url) => request("ui/open-link", { url }),
    reportSize,
    async connect(appInfo) {
      listeners.hostContext.push(applyTheme);
      const answer = await request("ui/initialize", {
        appInfo,
        appCapabilities: { availableDisplayModes: ["inline"] },
        protocolVersion: PROTOCOL_VERSION,
      });
      hostCapabilities = answer?.hostCapabilities ?? {};
      applyTheme(answer?.hostContext);
      notify("ui/notifications/initialized", {});
      new ResizeObserver(reportSize).observe(document.documentElement);
    },
  };
})();

/** Text of a tool result that failed: what the tool said, for the view to show as is. */
function resultText(result) {
  const block = (result.content ?? []).find((part) => part.type === "text");
  return block ? block.text : "The tool call failed.";
}

/** An element with optional class and text; text is always set as text, never parsed as HTML. */
function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = String(text);
  return made;
}

function showFailure(root, result) {
  root.replaceChildren(element("p", "failure", resultText(result)));
}

/** What the views share, one script before theirs in the same page. */
globalThis.viewKit = { bridge: appsBridge, element, resultText, showFailure };
