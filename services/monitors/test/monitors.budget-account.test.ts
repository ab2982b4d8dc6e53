/**
 * Every upstream read the monitors service makes is counted in an account's fair share of the
 * monitors class (docs/upstream.md#fair-shares): a backfill in its monitor's account, a source's
 * shared live poll in one of the accounts watching it, drawn
 * for each poll. Checked on the adapter requests themselves,
 * as the pacer receives them, over the real NATS, adapter and simulator.
 */
import { waitFor } from "@rda/service-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

let harness: Harness;

beforeAll(async () => {
  harness = await startHarness();
});

afterAll(async () => {
  await harness?.stop();
});

interface SeenRead {
  readonly account: string | undefined;
  readonly priority: string | undefined;
  readonly sort: string;
  readonly subreddit: string | undefined;
}

/** Every listing read sent to the adapters from now on (a plain subscriber sees each one). */
function watchListingReads(h: Harness): { reads: SeenRead[]; stop(): void } {
  const subscription = h.nats.subscribe(h.subjects.adapter.listPosts);
  const reads: SeenRead[] = [];
  void (async () => {
    for await (const message of subscription) {
      const { account, priority, params } = JSON.parse(new TextDecoder().decode(message.data)) as {
        account?: string;
        priority?: string;
        params: { sort: string; subreddit?: string };
      };
      reads.push({ account, priority, sort: params.sort, subreddit: params.subreddit?.toLowerCase() });
    }
  })();
  return { reads, stop: () => subscription.unsubscribe() };
}

describe("the monitors class's fair shares", () => {
  it("counts a backfill in its monitor's account, and a shared source's live polls in its watching accounts", async () => {
    const replica = await harness.startReplica();
    const [shared, own] = harness.simulator.corpus.subreddits
      .slice(0, 2)
      .map((sub) => sub.name.toLowerCase());
    const watched = watchListingReads(harness);
    const create = async (key_id: string, account_id: string | undefined, body: Record<string, unknown>) => {
      const answer = await harness.ask("create", {
        key_id,
        ...(account_id === undefined ? {} : { account_id }),
        body: { kind: "post", interval_seconds: 1, ...body },
      });
      if (!answer.ok) throw new Error(answer.error);
      return answer.value.monitor.id;
    };
    // Two accounts (one of them an operator's key, an account of its own) watch one community.
    const ids = [
      [
        "key_budgeta000000000",
        await create("key_budgeta000000000", "acct_000000000budgeta", { subreddit: shared }),
      ],
      ["key_budgetb000000000", await create("key_budgetb000000000", undefined, { subreddit: shared })],
      // A third account backfills another community.
      [
        "key_budgetc000000000",
        await create("key_budgetc000000000", "acct_000000000budgetc", {
          subreddit: own,
          backfill_from: "3d",
        }),
      ],
    ] as const;
    await waitFor(
      () => {
        const sharedAccounts = new Set(
          watched.reads.filter((read) => read.subreddit === shared).map((read) => read.account),
        );
        return sharedAccounts.has("acct_000000000budgeta") && sharedAccounts.has("key:key_budgetb000000000");
      },
      "the shared source to be polled for each of its accounts",
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(watched.reads.slice(0, 20))}`);
    });
    watched.stop();
    for (const [key_id, id] of ids) await harness.ask("delete", { key_id, id });
    await replica.stop();

    // Every read the monitors made is at their class, for an account: none rides in the shared flow.
    const monitorReads = watched.reads.filter((read) => read.priority === "monitors");
    expect(monitorReads.length).toBeGreaterThan(0);
    for (const read of monitorReads) expect(read.account).toBeDefined();
    // The shared source's polls went to its two accounts only; the other community's to its own.
    const accountsOf = (subreddit: string | undefined) =>
      new Set(monitorReads.filter((read) => read.subreddit === subreddit).map((read) => read.account));
    expect(accountsOf(shared)).toEqual(new Set(["acct_000000000budgeta", "key:key_budgetb000000000"]));
    expect(accountsOf(own)).toEqual(new Set(["acct_000000000budgetc"]));
    // The backfill's pages (oldest first) were read for its account.
    expect(monitorReads.some((read) => read.subreddit === own && read.sort === "asc")).toBe(true);
  }, 90_000);
});
