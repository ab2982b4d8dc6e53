/**
 * How a request to billing that got no usable answer is reported: a refusal by billing (it checked
 * the request and said no) is a usage error; every way of not getting an answer is "unavailable",
 * with a hint when billing is simply not running.
 */
import type { NatsRequestFailure } from "@rda/service-kit";
import { type CommandResult, EXIT } from "./exit-codes.ts";

export const START_HINT = "start the stack with pnpm start";

export function failureResult(failure: NatsRequestFailure): CommandResult {
  if (failure.kind === "service_error" && failure.code === 400) {
    return { exitCode: EXIT.usage, error: `billing refused the request: ${failure.message}` };
  }
  if (failure.kind === "no_responders") {
    return { exitCode: EXIT.unavailable, error: `billing is not running; ${START_HINT}` };
  }
  const reason =
    failure.kind === "service_error" ? `billing is up but failing: ${failure.message}` : failure.message;
  return { exitCode: EXIT.unavailable, error: reason };
}
