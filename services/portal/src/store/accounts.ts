/**
 * Portal accounts: one per verified address. An account is made only when a sign-in link is used,
 * so an address that never proved it receives mail never gets one. `SET NX` on the address index
 * makes two links redeemed at once for a new address end in one account.
 */
import type { StoreContext } from "./context.ts";
import { newAccountId, sha256 } from "./secrets.ts";

export interface Account {
  readonly id: string;
  readonly email: string;
  readonly createdAt: string;
}

export interface AccountStore {
  findIdByEmail(email: string): Promise<string | null>;
  /** The address's account, made now if it has none; `created` tells which. */
  findOrCreate(email: string): Promise<{ account: Account; created: boolean }>;
  get(accountId: string): Promise<Account | undefined>;
}

export function createAccountStore(context: StoreContext): AccountStore {
  const { redis, keys } = context;
  const get = async (accountId: string): Promise<Account | undefined> => {
    const record = await redis.hgetall(keys.account(accountId));
    if (!record.email) return undefined;
    return { id: accountId, email: record.email, createdAt: record.created_at ?? "" };
  };
  return {
    findIdByEmail: (email) => redis.get(keys.accountByEmail(sha256(email))),
    get,
    async findOrCreate(email) {
      const candidate = newAccountId();
      const createdAt = new Date(context.now()).toISOString();
      // The record first: whoever wins the index below finds a complete account behind it.
      await redis.hset(keys.account(candidate), { email, created_at: createdAt });
      const claimed = await redis.set(keys.accountByEmail(sha256(email)), candidate, "NX");
      if (claimed === "OK") return { account: { id: candidate, email, createdAt }, created: true };
      await redis.del(keys.account(candidate));
      const existingId = await redis.get(keys.accountByEmail(sha256(email)));
      const existing = existingId ? await get(existingId) : undefined;
      if (!existing) throw new Error("account index points at no account");
      return { account: existing, created: false };
    },
  };
}
