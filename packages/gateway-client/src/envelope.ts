/** The 200 body schema of each operation, built once from the contracts (spec §2). */
import { creditEnvelopeSchema, listEnvelopeSchema, OPERATIONS, type OperationName } from "@rda/contracts";
import type { z } from "zod";

const cache = new Map<OperationName, z.ZodType>();

export function envelopeSchemaOf(operation: OperationName): z.ZodType {
  let schema = cache.get(operation);
  if (!schema) {
    const contract = OPERATIONS[operation];
    schema =
      contract.meta === "list" ? listEnvelopeSchema(contract.data) : creditEnvelopeSchema(contract.data);
    cache.set(operation, schema);
  }
  return schema;
}
