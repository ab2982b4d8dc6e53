/**
 * Billing's admissions per second: bursts of admissions sent straight to billing over NATS, as the
 * gateways send them (one credit), each on its own request id, with
 * `concurrency` in flight at once. Reports the rate, the share billing refused as 503, and the CPU
 * each admission cost billing and the servers it uses.
 */
import { randomUUID } from "node:crypto";
import { buildSubjects } from "@rda/contracts";
import { billingCaller, connectNats, createLogger } from "@rda/service-kit";
import { startCpuWindow, type WatchedProcess } from "./cpu.ts";

export interface AdmissionFigures {
  admissions_per_second: number;
  admissions: number;
  concurrency: number;
  /** Admissions answered with a service error (503: billing gave up on its store) or not at all. */
  failed: number;
  cpu_ms_per_admission: Record<string, number>;
  cpu_ms_per_admission_total: number;
}

export async function measureAdmissions(options: {
  natsUrl: string;
  namespace: string;
  keyId: string;
  admissions: number;
  concurrency: number;
  watched: readonly WatchedProcess[];
}): Promise<AdmissionFigures> {
  const nats = await connectNats(options.natsUrl, "bench", createLogger("bench", { level: "warn" }));
  const billing = billingCaller(nats, buildSubjects(options.namespace), 10_000);
  const admit = () =>
    billing.call("admit", {
      key_id: options.keyId,
      request_id: `bench-${randomUUID()}`,
      operation: "listPosts",
      credits: 1,
      pending_ms: 60_000,
    });
  for (let i = 0; i < 200; i++) await admit();
  let next = 0;
  let failed = 0;
  const stop = startCpuWindow(options.watched);
  const started = performance.now();
  const worker = async () => {
    while (next++ < options.admissions) {
      const answer = await admit();
      if (!answer.ok || answer.value.outcome !== "admitted") failed += 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  const cpu = stop();
  await nats.close();
  const perAdmission = Object.fromEntries(
    Object.entries(cpu).map(([name, ms]) => [name, Math.round((ms / options.admissions) * 1000) / 1000]),
  );
  return {
    admissions_per_second: Math.round(options.admissions / seconds),
    admissions: options.admissions,
    concurrency: options.concurrency,
    failed,
    cpu_ms_per_admission: perAdmission,
    cpu_ms_per_admission_total:
      Math.round(Object.values(perAdmission).reduce((sum, ms) => sum + ms, 0) * 1000) / 1000,
  };
}
