/**
 * The work queue of export jobs: a JetStream stream with work-queue retention (a message is gone
 * once acked) and one durable consumer every worker replica pulls from (service-kit's consumer
 * loop). A message names a job and its run; the worker keeps it unacked while it works (the loop
 * renews its ack wait), so a worker that dies (even by SIGKILL) lets the message go to another
 * replica after the ack wait, which resumes from the job's checkpoint.
 */
import type { ExportSubjects } from "@rda/contracts";
import {
  AckPolicy,
  DeliverPolicy,
  ensureConsumer,
  ensureStream,
  type JetStreamClient,
  type JetStreamManager,
  nanos,
  RetentionPolicy,
} from "@rda/service-kit";
import { z } from "zod";

/** One run of a job: a message of an older run than the job's is dropped by the worker. */
export const jobMessageSchema = z.object({ id: z.string().min(1).max(64), run: z.number().int().min(0) });
export type JobMessage = z.infer<typeof jobMessageSchema>;

export async function ensureJobQueue(
  jsm: JetStreamManager,
  subjects: ExportSubjects,
  ackWaitMs: number,
  replicas: number,
) {
  await ensureStream(
    jsm,
    {
      name: subjects.jobStream,
      subjects: [subjects.jobs],
      retention: RetentionPolicy.Workqueue,
      duplicate_window: nanos(120_000),
    },
    replicas,
  );
  await ensureConsumer(jsm, subjects.jobStream, {
    durable_name: subjects.jobConsumer,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: subjects.jobs,
    ack_wait: nanos(ackWaitMs),
    max_deliver: -1,
  });
}

/** Puts a job's run on the queue; the message id makes a repeated publish of one run a no-op. */
export async function enqueueJob(js: JetStreamClient, subjects: ExportSubjects, message: JobMessage) {
  await js.publish(subjects.jobs, JSON.stringify(message), {
    msgID: `${message.id}.r${message.run}`,
    expect: { streamName: subjects.jobStream },
  });
}
