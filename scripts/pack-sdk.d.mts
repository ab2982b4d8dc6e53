/** Types of pack-sdk.mjs (plain JavaScript, so that scripts/build.mjs runs it without a loader). */
export const PORTAL_SDK_DIR: string;
export function sdkTarballName(): string;
export function packSdk(destination?: string): string;
