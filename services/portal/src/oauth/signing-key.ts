/**
 * The authorization server's signing key (OAUTH_SIGNING_KEY: an EC P-256 private key in PEM). Access
 * tokens are signed with it (ES256); the gateway verifies them with its public half, published at
 * the JWKS endpoint. The secret that signs the authorization server's own short cookies is derived
 * from it (HKDF), so the operator keeps one secret, not two. Unset, a key is made at start: fine
 * for one process on a laptop, wrong for several replicas (each would sign with its own).
 */
import { createHash, createPrivateKey, generateKeyPairSync, hkdfSync, type KeyObject } from "node:crypto";

export interface SigningKey {
  readonly alg: "ES256";
  /** The private JWK oidc-provider signs with (`kid` the RFC 7638 thumbprint). */
  readonly privateJwk: {
    kty: "EC";
    crv: "P-256";
    x: string;
    y: string;
    d: string;
    kid: string;
    alg: string;
    use: string;
  };
  readonly cookieSecret: string;
}

export function signingKeyFromPem(pem: string): SigningKey {
  // A PEM in an environment variable often arrives with its newlines written as "\n".
  return signingKeyOf(createPrivateKey(pem.replace(/\\n/g, "\n")));
}

export function generateSigningKey(): SigningKey {
  return signingKeyOf(generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey);
}

function signingKeyOf(key: KeyObject): SigningKey {
  if (
    key.type !== "private" ||
    key.asymmetricKeyType !== "ec" ||
    key.asymmetricKeyDetails?.namedCurve !== "prime256v1"
  ) {
    throw new Error(
      "must be an EC P-256 private key in PEM (openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256)",
    );
  }
  const jwk = key.export({ format: "jwk" }) as { x: string; y: string; d: string };
  const thumbprint = createHash("sha256")
    .update(JSON.stringify({ crv: "P-256", kty: "EC", x: jwk.x, y: jwk.y }))
    .digest("base64url");
  const cookieSecret = Buffer.from(
    hkdfSync("sha256", Buffer.from(jwk.d, "base64url"), "", "rda portal oauth cookies", 32),
  ).toString("base64url");
  return {
    alg: "ES256",
    privateJwk: {
      kty: "EC",
      crv: "P-256",
      x: jwk.x,
      y: jwk.y,
      d: jwk.d,
      kid: thumbprint,
      alg: "ES256",
      use: "sig",
    },
    cookieSecret,
  };
}
