/**
 * Every process that reads the environment, with the schema it validates it by (each service's
 * `loadConfig` shape). docs/settings.md is generated from this list: add a process here when it
 * gains a `loadConfig` of its own.
 */
import { readFileSync } from "node:fs";
import { adapterEnvShape } from "../../packages/adapter-kit/src/index.ts";
import { adminCliConfigShape } from "../../services/billing/src/cli/config.ts";
import { billingConfigShape } from "../../services/billing/src/settings.ts";
import { exportsConfigShape } from "../../services/exports/src/config.ts";
import { gatewayConfigShape } from "../../services/gateway/src/wiring/config.ts";
import { mcpConfigShape, mcpObservabilityShape } from "../../services/mcp/src/config.ts";
import { monitorsConfigShape } from "../../services/monitors/src/config.ts";
import { paymentsSimConfigShape } from "../../services/payments-sim/src/config.ts";
import { noticesConfigShape, portalConfigShape } from "../../services/portal/src/config.ts";
import { simConfigShape } from "../../services/upstream-sim/src/config.ts";

/** A zod schema, as much of it as the table needs: whether it takes "unset", and what to. */
export interface SettingSchema {
  safeParse(value: unknown): { success: boolean; data?: unknown };
}

export interface SettingsReader {
  readonly name: string;
  readonly shape: Readonly<Record<string, SettingSchema>>;
}

const ROOT = new URL("../../", import.meta.url);

/** An adapter's default health and metrics ports, as its main.ts passes them to runAdapterMain. */
function adapterPorts(service: string): { health: number; metrics: number } {
  const main = readFileSync(new URL(`services/${service}/src/main.ts`, ROOT), "utf8");
  const ports = /\{\s*health:\s*(\d+),\s*metrics:\s*(\d+)\s*\}/.exec(main);
  if (!ports) throw new Error(`services/${service}/src/main.ts passes no { health, metrics } ports`);
  return { health: Number(ports[1]), metrics: Number(ports[2]) };
}

const adapter = (service: string): SettingsReader => {
  const ports = adapterPorts(service);
  return { name: service, shape: adapterEnvShape(ports.health, ports.metrics) };
};

export const SETTINGS_READERS: readonly SettingsReader[] = [
  { name: "gateway", shape: gatewayConfigShape },
  { name: "billing", shape: billingConfigShape },
  adapter("adapter-posts"),
  adapter("adapter-tree"),
  adapter("adapter-users"),
  adapter("adapter-communities"),
  { name: "mcp", shape: { ...mcpConfigShape, ...mcpObservabilityShape } },
  { name: "portal", shape: portalConfigShape },
  { name: "notices", shape: noticesConfigShape },
  { name: "exports", shape: exportsConfigShape },
  { name: "monitors", shape: monitorsConfigShape },
  { name: "admin CLI", shape: adminCliConfigShape },
  { name: "upstream-sim", shape: simConfigShape },
  { name: "payments-sim", shape: paymentsSimConfigShape },
];
