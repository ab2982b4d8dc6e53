/** The operator CLI's environment (docs/settings.md): where billing is, and who the operator is on NATS. */
import { env } from "@rda/service-kit";

export const adminCliConfigShape = {
  NATS_URL: env.natsUrl(),
  NATS_USER: env.natsUser(),
  NATS_PASSWORD: env.natsPassword(),
  RDA_NAMESPACE: env.namespace(),
} as const;
