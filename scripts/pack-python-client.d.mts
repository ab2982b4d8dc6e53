/** Types of pack-python-client.mjs (plain JavaScript, so that scripts/build.mjs runs it without a loader). */
export const PYTHON_CLIENT: string;
export const PYTHON: string;
export const README_NAME: string;
export function wheelName(): string;
export function cannotBuildWheel(): string | undefined;
export function buildPythonWheel(destination?: string, log?: (line: string) => void): string | undefined;
