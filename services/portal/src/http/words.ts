/**
 * Numbers in the portal's sentences, said one way everywhere: "1 credit", "2 credits", "about
 * 2 seconds". Every page gets these as `it.words` (render.ts), so a template never builds a plural
 * itself.
 */

/** "1 page", "1,204 pages"; `plural` where adding an s is wrong. */
export function count(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? singular : plural}`;
}

/** A duration as people say it: seconds under 90 s, minutes under 90 min, else hours. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return count(Math.max(1, s), "second");
  const minutes = Math.round(s / 60);
  if (minutes < 90) return count(minutes, "minute");
  return count(Math.round(s / 3600), "hour");
}

export const words = { count, duration } as const;
