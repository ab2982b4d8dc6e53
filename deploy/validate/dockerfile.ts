/**
 * deploy/Dockerfile cannot be built here (no engine), so its promises are checked as text: base images
 * pinned by tag, the lockfile honoured, a runtime stage that runs built JavaScript (no tsx, no
 * TypeScript, no node_modules: dev tools cannot leak in), a non-root user, a health check and an
 * exec-form command (node as PID 1 receives SIGTERM). .dockerignore keeps node_modules out.
 */
import { readFileSync } from "node:fs";
import { type Problem, problem } from "./problems.ts";

export function dockerfileProblems(
  dockerfile: string,
  dockerignore: string,
  where = "deploy/Dockerfile",
): Problem[] {
  const problems: Problem[] = [];
  const lines = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim());
  const args = new Map<string, string>();
  for (const line of lines) {
    const arg = /^ARG\s+(\w+)=(\S+)/.exec(line);
    if (arg?.[1] && arg[2]) args.set(arg[1], arg[2]);
  }
  const stages = lines.filter((line) => /^FROM\s/i.test(line));
  for (const stage of stages) {
    const image = (stage.split(/\s+/)[1] ?? "").replace(
      /^\$\{(\w+)\}$/,
      (_, name: string) => args.get(name) ?? "",
    );
    const isStage = stages.some((other) => new RegExp(`\\sAS\\s+${image}$`, "i").test(other));
    if (!isStage && (!/:[\w.-]+$/.test(image) || image.endsWith(":latest"))) {
      problems.push(problem(where, `base image "${image}" must be pinned by a tag other than latest`));
    }
  }
  const install = lines.find((line) => /pnpm install/.test(line)) ?? "";
  for (const flag of ["--frozen-lockfile", "--filter"]) {
    if (!install.includes(flag)) problems.push(problem(where, `pnpm install needs ${flag}`));
  }
  const finalStage = lines.slice(lines.lastIndexOf(stages.at(-1) ?? ""));
  const user = finalStage
    .filter((line) => /^USER\s/.test(line))
    .at(-1)
    ?.split(/\s+/)[1];
  if (!user || user === "root" || user === "0")
    problems.push(problem(where, "the final stage must run as a non-root USER"));
  if (!finalStage.some((line) => /^HEALTHCHECK\s/.test(line)))
    problems.push(problem(where, "the final stage needs a HEALTHCHECK"));
  const command = finalStage.filter((line) => /^(CMD|ENTRYPOINT)\s/.test(line)).at(-1) ?? "";
  if (!/^(CMD|ENTRYPOINT)\s+\[/.test(command))
    problems.push(problem(where, "CMD must be in exec form (JSON array)"));
  if (/tsx|\.ts"/.test(command) || !/\.m?js"/.test(command)) {
    problems.push(
      problem(where, "CMD must run built JavaScript (dist/main.mjs), not TypeScript through tsx"),
    );
  }
  if (finalStage.some((line) => /^COPY\s.*node_modules/.test(line))) {
    problems.push(
      problem(where, "the final stage must not copy node_modules: the built files hold what runs"),
    );
  }
  if (finalStage.some((line) => /pnpm (install|add)|npm (install|i)\s/.test(line))) {
    problems.push(problem(where, "the final stage must not install packages (dev tools would leak in)"));
  }
  if (!dockerignore.split("\n").some((line) => line.trim() === "**/node_modules")) {
    problems.push(problem(".dockerignore", "must exclude **/node_modules"));
  }
  return problems;
}

export const readDockerfileProblems = (dockerfilePath: string, dockerignorePath: string) =>
  dockerfileProblems(
    readFileSync(dockerfilePath, "utf8"),
    readFileSync(dockerignorePath, "utf8"),
    dockerfilePath,
  );
