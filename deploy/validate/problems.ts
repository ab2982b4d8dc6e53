/** A problem found in a deployment file: where (file or object) and what is wrong. */
export interface Problem {
  readonly where: string;
  readonly message: string;
}

export const problem = (where: string, message: string): Problem => ({ where, message });

export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((found) => `  ${found.where}: ${found.message}`).join("\n");
}
