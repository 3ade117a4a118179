import type { SourceType } from './vocabulary.ts';

/**
 * Who publishes a cited domain, as data: registrable domains by editorial relationship. Owned and
 * competitor domains are decided per project; institutional also by suffix (see classify-source).
 */
export const SOURCE_HOSTS: Record<Exclude<SourceType, 'owned' | 'competitor' | 'other'>, readonly string[]> = {
  editorial: [
    'nytimes.com', 'wsj.com', 'washingtonpost.com', 'theguardian.com', 'bbc.co.uk', 'bbc.com', 'reuters.com',
    'bloomberg.com', 'ft.com', 'economist.com', 'forbes.com', 'businessinsider.com', 'cnbc.com', 'cnn.com',
    'techcrunch.com', 'theverge.com', 'wired.com', 'arstechnica.com', 'engadget.com', 'zdnet.com', 'cnet.com',
    'pcmag.com', 'techradar.com', 'tomsguide.com', 'venturebeat.com', 'fastcompany.com', 'inc.com',
    'entrepreneur.com', 'hbr.org', 'axios.com', 'theatlantic.com', 'apnews.com', 'npr.org', 'usatoday.com',
    'nbcnews.com', 'cbsnews.com', 'abcnews.go.com', 'latimes.com', 'time.com', 'fortune.com', 'marketwatch.com',
    'investopedia.com', 'nerdwallet.com', 'searchengineland.com', 'searchenginejournal.com', 'lemonde.fr',
    'spiegel.de', 'zeit.de', 'elpais.com', 'theregister.com', 'infoworld.com', 'computerworld.com',
  ],
  ugc: [
    'reddit.com', 'quora.com', 'stackoverflow.com', 'stackexchange.com', 'medium.com', 'substack.com',
    'wikipedia.org', 'wikihow.com', 'ycombinator.com', 'dev.to', 'hashnode.com', 'github.com', 'fandom.com',
    'producthunt.com', 'indiehackers.com', 'tumblr.com', 'discord.com', 'wordpress.com', 'blogspot.com',
  ],
  review: [
    'g2.com', 'capterra.com', 'trustpilot.com', 'trustradius.com', 'getapp.com', 'softwareadvice.com',
    'gartner.com', 'yelp.com', 'tripadvisor.com', 'sitejabber.com', 'consumerreports.org', 'wirecutter.com',
    'rtings.com', 'glassdoor.com', 'bbb.org', 'pcmag.com',
  ],
  social: [
    'twitter.com', 'x.com', 'facebook.com', 'instagram.com', 'linkedin.com', 'tiktok.com', 'youtube.com',
    'youtu.be', 'pinterest.com', 'threads.net', 'bsky.app', 'mastodon.social', 'snapchat.com', 'vimeo.com',
    'twitch.tv',
  ],
  corporate: [
    'microsoft.com', 'apple.com', 'google.com', 'amazon.com', 'aws.amazon.com', 'salesforce.com', 'hubspot.com',
    'oracle.com', 'ibm.com', 'sap.com', 'adobe.com', 'shopify.com', 'stripe.com', 'atlassian.com', 'zoho.com',
    'meta.com', 'openai.com', 'anthropic.com', 'nvidia.com', 'intel.com', 'cisco.com', 'dell.com', 'hp.com',
  ],
  institutional: ['who.int', 'un.org', 'europa.eu', 'oecd.org', 'worldbank.org', 'imf.org', 'nih.gov', 'nist.gov'],
};

/** Suffixes of institutions: governments, universities, international bodies. */
export const INSTITUTIONAL_SUFFIXES = ['.gov', '.edu', '.mil', '.int', '.gov.uk', '.ac.uk', '.gouv.fr', '.gc.ca', '.gov.au', '.edu.au'];

/** Hosts of news publishers (for the article type `news`), beyond the editorial list. */
export const NEWS_HOSTS = ['news.google.com', 'news.yahoo.com', 'apnews.com', 'reuters.com', 'bbc.com', 'bbc.co.uk', 'cnn.com'];

/** Video platforms (article type `video`). */
export const VIDEO_HOSTS = ['youtube.com', 'youtu.be', 'vimeo.com', 'tiktok.com', 'twitch.tv', 'dailymotion.com', 'loom.com', 'wistia.com'];

/** Forums and Q&A (article type `forum`). */
export const FORUM_HOSTS = ['reddit.com', 'quora.com', 'stackoverflow.com', 'stackexchange.com', 'ycombinator.com', 'discourse.org', 'community.spiceworks.com'];

/** Review sites (article type `review`). */
export const REVIEW_HOSTS = SOURCE_HOSTS.review;
