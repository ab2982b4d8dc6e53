/**
 * Research prompts (docs/api.md#mcp-endpoint-prompts): each is one user message that names the tools
 * the model is expected to call, says what they cost, and asks for every claim to be cited by
 * permalink. A prompt itself is free: it calls nothing; the tool calls it leads to are charged as
 * usual.
 */
import {
  type GetPromptResult,
  type Prompt,
  ProtocolError,
  ProtocolErrorCode,
  type Server,
} from "@modelcontextprotocol/server";

type PromptArgs = Record<string, string | undefined>;

interface ResearchPrompt {
  readonly listing: Prompt;
  /** The tools the message asks the model to call, in the order it should call them. */
  readonly tools: readonly string[];
  readonly message: (args: PromptArgs) => string;
}

const CITE =
  "Cite every claim with the permalink of the post or comment it rests on (https://www.reddit.com + permalink), and say when the data is thin.";

const argument = (name: string, description: string, required = true) => ({ name, description, required });

const WINDOW_HINT = "epoch seconds, an ISO date, or a relative form such as 30d";

export const PROMPTS: readonly ResearchPrompt[] = [
  {
    listing: {
      name: "summarize_thread",
      title: "Summarize a thread",
      description:
        "Summarize one post's discussion: the main positions, the strongest arguments, where people disagree. Calls get_comment_tree (1 credit per piece read).",
      arguments: [argument("post_id", "The post's id (the part after /comments/ in its link).")],
    },
    tools: ["get_comment_tree"],
    message: ({ post_id }) =>
      [
        `Summarize the Reddit thread of post ${post_id}.`,
        `Call get_comment_tree with {"post_id":"${post_id}"}; while its result has \`next\`, call it again with those arguments until you have read enough to be fair to the discussion (each call costs 1 credit).`,
        "Give the main positions, the strongest arguments for each, where people disagree, and what the most upvoted comments say.",
        CITE,
      ].join("\n\n"),
  },
  {
    listing: {
      name: "community_on_topic",
      title: "What a community says about a topic",
      description:
        "What one community says about a topic over a window: how often it comes up, and what is said. Calls get_activity, search_posts and search_comments (1 credit each call).",
      arguments: [
        argument("subreddit", "The community, without r/."),
        argument("topic", "The phrase to look for."),
        argument("after", `Start of the window: ${WINDOW_HINT}.`),
        argument("before", `End of the window (default now): ${WINDOW_HINT}.`, false),
      ],
    },
    tools: ["get_activity", "search_posts", "search_comments"],
    message: ({ subreddit, topic, after, before }) => {
      const window = JSON.stringify({ after, ...(before ? { before } : {}) }).slice(1, -1);
      return [
        `Find out what r/${subreddit} says about "${topic}" between ${after} and ${before ?? "now"}.`,
        `1. Call get_activity with {"subreddit":"${subreddit}","q":"${topic}","interval":"day",${window}} to see when it comes up.`,
        `2. Call search_posts and search_comments with {"subreddit":"${subreddit}","q":"${topic}",${window}}; follow \`next\` for more.`,
        "Report how much it is discussed and when it peaked, the main opinions with how common each is, and notable disagreements. Every call costs 1 credit; stop when more reading would not change the answer.",
        CITE,
      ].join("\n\n");
    },
  },
  {
    listing: {
      name: "community_brief",
      title: "A community brief",
      description:
        "A brief on one community: its size and activity, its rules, and its top recent threads. Calls search_subreddits, get_subreddit_rules, get_activity and search_posts (1 credit each call).",
      arguments: [
        argument("subreddit", "The community, without r/."),
        argument(
          "after",
          `Start of the window for activity and threads (default 30d): ${WINDOW_HINT}.`,
          false,
        ),
      ],
    },
    tools: ["search_subreddits", "get_subreddit_rules", "get_activity", "search_posts"],
    message: ({ subreddit, after }) => {
      const since = after ?? "30d";
      return [
        `Write a brief on r/${subreddit}.`,
        `1. Call search_subreddits with {"q":"${subreddit}"} and take the entry named exactly ${subreddit}: subscribers and description.`,
        `2. Call get_subreddit_rules with {"name":"${subreddit}"}.`,
        `3. Call get_activity with {"subreddit":"${subreddit}","interval":"day","after":"${since}"} for posts per day.`,
        `4. Call search_posts with {"subreddit":"${subreddit}","after":"${since}","limit":100} and pick the top threads by score and comments.`,
        "Give: what the community is about and its size; its activity and trend; its rules in a sentence each; its five top threads with one line each. Each call costs 1 credit.",
        CITE,
      ].join("\n\n");
    },
  },
  {
    listing: {
      name: "track_topic",
      title: "Track a topic",
      description:
        "Set up a monitor that keeps collecting a community's (or an author's) new items on a topic, after the person confirms. Calls check_credits and create_monitor (free); reading its items with read_monitor_items costs 1 credit per page with items.",
      arguments: [
        argument("topic", "The phrase to track."),
        argument("subreddit", "The community to watch, without r/ (give this or author).", false),
        argument("author", "The author to watch, without u/ (give this or subreddit).", false),
      ],
    },
    tools: ["check_credits", "create_monitor", "read_monitor_items"],
    message: ({ topic, subreddit, author }) => {
      const source = subreddit ? `"subreddit":"${subreddit}"` : `"author":"${author}"`;
      const where = subreddit ? `r/${subreddit}` : `u/${author}`;
      return [
        `The person wants to track "${topic}" in ${where}.`,
        "1. Call check_credits (free) and tell the person the balance.",
        `2. Describe the monitors you would create — one for posts and one for comments in ${where}, matching the phrase "${topic}" — and that reading their items costs 1 credit per page that has items. Ask the person to confirm, and whether they want posts, comments or both. Do not create anything before they say yes.`,
        `3. Once they confirm, call create_monitor (free) with {${source},"kind":"post","phrase":"${topic}"} and/or {${source},"kind":"comment","phrase":"${topic}"}, and tell them each monitor's id and that read_monitor_items returns its new items.`,
        CITE,
      ].join("\n\n");
    },
  },
];

const COMMUNITY = /^[A-Za-z0-9_]{3,21}$/;
const USERNAME = /^[A-Za-z0-9_-]{3,20}$/;
const POST_ID = /^[a-z0-9]{1,12}$/;

/** Why these arguments cannot fill the prompt, or undefined when they can. */
function argumentProblem(prompt: ResearchPrompt, args: PromptArgs): string | undefined {
  for (const { name, required } of prompt.listing.arguments ?? []) {
    if (required && !args[name]) return `the argument ${name} is required`;
  }
  if (args.subreddit !== undefined && !COMMUNITY.test(args.subreddit.replace(/^r\//, "")))
    return "subreddit must be a community name of 3 to 21 letters, digits or underscores";
  if (args.author !== undefined && !USERNAME.test(args.author.replace(/^u\//, "")))
    return "author must be a username of 3 to 20 letters, digits, underscores or hyphens";
  if (args.post_id !== undefined && !POST_ID.test(args.post_id))
    return "post_id must be a post id: lowercase letters and digits";
  if (prompt.listing.name === "track_topic" && !args.subreddit === !args.author)
    return "give exactly one of subreddit and author";
  if (args.topic !== undefined && /["\\\n]/.test(args.topic))
    return "topic must be a phrase without quotes, backslashes or line breaks";
  return undefined;
}

export function registerPrompts(server: Server): void {
  server.setRequestHandler("prompts/list", () => ({ prompts: PROMPTS.map((prompt) => prompt.listing) }));
  server.setRequestHandler("prompts/get", (request) =>
    getPrompt(request.params.name, (request.params.arguments ?? {}) as PromptArgs),
  );
}

function getPrompt(name: string, raw: PromptArgs): GetPromptResult {
  const prompt = PROMPTS.find((known) => known.listing.name === name);
  if (!prompt) {
    const names = PROMPTS.map((known) => known.listing.name).join(", ");
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Unknown prompt '${name}'; the prompts are ${names}`,
    );
  }
  const args = withoutPrefixes(raw);
  const problem = argumentProblem(prompt, args);
  if (problem) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name}: ${problem}`);
  return {
    description: prompt.listing.description,
    messages: [{ role: "user", content: { type: "text", text: prompt.message(args) } }],
  };
}

/** `r/` and `u/` are tolerated as on every tool; empty strings count as absent. */
function withoutPrefixes(args: PromptArgs): PromptArgs {
  const clean: PromptArgs = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value.trim() === "") continue;
    clean[name] = value.trim().replace(name === "subreddit" ? /^r\// : name === "author" ? /^u\// : /^$/, "");
  }
  return clean;
}
