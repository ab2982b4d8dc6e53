import { describe, expect, it } from "vitest";
import { clientBucket } from "../src/store/mail-limits.ts";

describe("the client a mail limit counts", () => {
  it("is the IPv4 address itself, also when written IPv4-mapped", () => {
    expect(clientBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("is the /64 of an IPv6 address, however the address is written", () => {
    const bucket = "2001:db8:0:1::/64";
    expect(clientBucket("2001:db8:0:1::1")).toBe(bucket);
    expect(clientBucket("2001:0db8:0000:0001:ffff:ffff:ffff:ffff")).toBe(bucket);
    expect(clientBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientBucket("::1")).toBe("0:0:0:0::/64");
  });
});
