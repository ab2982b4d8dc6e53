import { presentAccount } from "../results/single-results.ts";
import { defineTool } from "./define-tool.ts";

export const checkCredits = defineTool("getAccount", {
  title: "Check credits",
  present: (tool, envelope) => presentAccount(tool, envelope),
  describe: (budget) => [
    "Returns this API key's credit balance, rate limit (requests per second and burst), and this month's spend against its monthly spend cap. Call it before a long paging run, or after an error, to see what is left.",
    `A result stays within ${budget} bytes.`,
  ],
});
