/** Word banks for generated text. Plain data; generators live in text.ts. */
const words = (text: string): readonly string[] => text.trim().split(/\s+/);
const phrases = (text: string): readonly string[] => text.split("|");

export const USERNAME_PARTS = words(`
  quiet river stone panda falcon maple ember tiny lazy cosmic crimson silver hollow
  nimble wild brave salty spicy rusty velvet lunar solar frost thunder pixel byte mellow
  coffee tea waffle pickle noodle taco biscuit otter badger moose heron lynx raven fox
  wolf bear owl gecko walrus yak koala ferret squid narwhal wizard pirate ninja captain
  doctor professor farmer ranger sailor tinker baker hiker runner gamer reader writer
  `);

export const FLAIR_TEXTS = words(`
  Verified Moderator Contributor Regular Newbie Expert Veteran Helper Lurker Enthusiast
  `);

export const ADJECTIVES = words(`
  first new old weird best worst tiny huge strange simple cheap expensive broken perfect
  homemade vintage beginner advanced quick slow unexpected favourite underrated overrated
  `);

export const VERBS = words(`
  fix start choose clean learn store improve avoid find build replace compare plan test
  `);

export const FILLER_WORDS = words(`
  the a this that my your really just actually probably honestly definitely maybe also
  because since while after before when if though still even only always never
  think know feel guess tried found noticed wanted needed started stopped made got
  time day week year thing way people part idea problem question answer point reason
  good great bad better worse same different important easy hard clear obvious
  `);

export const TITLE_TEMPLATES = phrases(
  "How do I {verb} my {topic}?|" +
    "What's your favourite {topic}?|" +
    "Finally finished my {topic}!|" +
    "PSA: check your {topic} before you {verb} it|" +
    "{Adj} {topic} after {n} years|" +
    "Is it normal for a {topic} to look like this?|" +
    "{topic} vs {topic2}: which one would you pick?|" +
    "My {adj} {topic} story|" +
    "TIL about the {topic}|" +
    "Need advice on a {adj} {topic}|" +
    "Why does nobody talk about the {topic}?|" +
    "Weekly discussion thread: {topic}|" +
    "I tried to {verb} a {topic} and it went {adj}|" +
    "Does anyone else struggle with {topic}?",
);

export const SENTENCE_TEMPLATES = phrases(
  "I think the {topic} is {adj} but I could be wrong.|" +
    "Have you tried to {verb} the {topic} first?|" +
    "This happened to me with my {topic} last {period}.|" +
    "Honestly the {adj} part is the {topic}.|" +
    "Source: I have been doing this for {n} years.|" +
    "Came here to say this.|" +
    "Same here, the {topic} made all the difference.|" +
    "You should {verb} it before you buy a new {topic}.|" +
    "That {topic} looks {adj}, nice work!|" +
    "Not sure why people keep saying the {topic} is {adj}.|" +
    "Edit: thanks everyone for the replies about the {topic}.|" +
    "It depends on the {topic} and how often you {verb} it.|" +
    "The {adj} {topic} thing is real.|" +
    "I disagree, {topic2} is way more {adj} than {topic}.",
);

export const PERIODS = words("week month year summer winter weekend");

export const RULE_TEMPLATES: readonly {
  readonly shortName: string;
  readonly description: string;
  readonly kind: "link" | "comment" | "all";
}[] = [
  { shortName: "Be civil", description: "Personal attacks, slurs and harassment are removed.", kind: "all" },
  {
    shortName: "Stay on topic",
    description: "Posts must be about {topic} or closely related.",
    kind: "link",
  },
  {
    shortName: "No spam or self-promotion",
    description: "Follow the 10:1 rule for your own content.",
    kind: "all",
  },
  {
    shortName: "No low-effort posts",
    description: "Memes and one-line questions go in the weekly thread.",
    kind: "link",
  },
  {
    shortName: "Use a descriptive title",
    description: "Titles like 'help' or 'question' are removed.",
    kind: "link",
  },
  {
    shortName: "No reposts",
    description: "Search before posting; reposts within 3 months are removed.",
    kind: "link",
  },
  {
    shortName: "Cite your sources",
    description: "Claims of fact should link a reliable source.",
    kind: "comment",
  },
  { shortName: "No piracy", description: "Do not ask for or share pirated material.", kind: "all" },
  { shortName: "Flair your post", description: "Unflaired posts are removed after one hour.", kind: "link" },
  { shortName: "No medical or legal advice", description: "Ask a professional instead.", kind: "comment" },
  { shortName: "English only", description: "Posts and comments must be in English.", kind: "all" },
  { shortName: "No personal information", description: "Doxxing leads to a permanent ban.", kind: "all" },
];
