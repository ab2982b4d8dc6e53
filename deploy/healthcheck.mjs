// Container health check: GET the service's own /readyz (the simulator has no /readyz: its stats
// page) on the port the service reads from its environment, and exit 0 only on a 2xx within 2 s.
// Plain JavaScript on purpose: it runs every few seconds, and tsx would add its start-up to each run.
const service = process.env.SERVICE ?? "";
const healthPorts = {
  billing: 9101,
  "adapter-posts": 9102,
  "adapter-tree": 9103,
  "adapter-communities": 9104,
  "adapter-users": 9105,
  monitors: 9111,
  // The portal's image run as its notices worker (SERVICE=notices in its container).
  notices: 9112,
};

function target() {
  const env = process.env;
  if (service === "gateway") return `http://127.0.0.1:${env.PORT || 8080}/readyz`;
  if (service === "mcp") return `http://127.0.0.1:${env.MCP_PORT || 8090}/readyz`;
  if (service === "exports") return `http://127.0.0.1:${env.EXPORTS_PORT || 9110}/readyz`;
  if (service === "portal") return `http://127.0.0.1:${env.PORTAL_PORT || 8060}/readyz`;
  if (service === "upstream-sim") return `http://127.0.0.1:${env.SIM_PORT || 8070}/__sim/stats`;
  if (service === "payments-sim") return `http://127.0.0.1:${env.PAYMENTS_SIM_PORT || 8075}/readyz`;
  if (service in healthPorts) return `http://127.0.0.1:${env.HEALTH_PORT || healthPorts[service]}/readyz`;
  return undefined;
}

const url = target();
if (url === undefined) {
  process.stderr.write(`healthcheck: unknown SERVICE "${service}"\n`);
  process.exit(2);
}
fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
  (response) => process.exit(response.ok ? 0 : 1),
  () => process.exit(1),
);
