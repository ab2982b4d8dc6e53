import { LinkKind } from "../corpus/constants.ts";
import type { Rng } from "../corpus/prng.ts";
import { pick } from "../corpus/prng.ts";
import type { Corpus } from "../corpus/types.ts";
import { itemRng, TextTag } from "./item-text.ts";

/** Where a post points: self posts to their own permalink, link posts to an external URL. */
export interface LinkTarget {
  readonly url: string;
  readonly domain: string;
  readonly postHint: string;
  readonly thumbnail: string;
  readonly isVideo: boolean;
}

const ARTICLE_HOSTS = [
  "www.nytimes.com",
  "www.theguardian.com",
  "www.bbc.co.uk",
  "arstechnica.com",
  "en.wikipedia.org",
  "medium.com",
];
const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

function token(rng: Rng, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET.charAt(Math.floor(rng() * 36));
  return out;
}

export function linkTarget(corpus: Corpus, post: number, permalink: string, slug: string): LinkTarget {
  const kind = corpus.posts.kind[post] as number;
  const sub = corpus.subreddits[corpus.posts.sub[post] as number]?.name ?? "";
  if (kind === LinkKind.self) {
    const url = `https://www.reddit.com${permalink}`;
    return { url, domain: `self.${sub}`, postHint: "self", thumbnail: "self", isVideo: false };
  }
  const rng = itemRng(corpus, TextTag.link, corpus.posts.idNum[post] as number);
  const thumbnail = `https://b.thumbs.redditmedia.com/${token(rng, 27)}.jpg`;
  return { ...externalTarget(rng, kind, slug, corpus.posts.idNum[post] as number), thumbnail };
}

function externalTarget(rng: Rng, kind: number, slug: string, idNum: number): Omit<LinkTarget, "thumbnail"> {
  switch (kind) {
    case LinkKind.image:
      return link(`https://i.redd.it/${token(rng, 13)}.jpeg`, "i.redd.it", "image");
    case LinkKind.video:
      return { ...link(`https://v.redd.it/${token(rng, 13)}`, "v.redd.it", "hosted:video"), isVideo: true };
    case LinkKind.youtube:
      return link(`https://www.youtube.com/watch?v=${token(rng, 11)}`, "youtube.com", "rich:video");
    case LinkKind.gallery:
      return link(`https://www.reddit.com/gallery/${idNum.toString(36)}`, "reddit.com", "gallery");
    case LinkKind.github:
      return link(`https://github.com/${token(rng, 8)}/${slug.slice(0, 20)}`, "github.com", "link");
    default: {
      const host = pick(rng, ARTICLE_HOSTS);
      return link(
        `https://${host}/${2020 + Math.floor(rng() * 7)}/${slug}`,
        host.replace(/^www\./, ""),
        "link",
      );
    }
  }
}

function link(url: string, domain: string, postHint: string): Omit<LinkTarget, "thumbnail"> {
  return { url, domain, postHint, isVideo: false };
}
