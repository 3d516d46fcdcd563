// The popup: read the page the popup was opened on, fill the form, and (without blocking
// the form) ask the server for suggestions. A failed suggestion shows nothing at all.
import { ext } from "./ext.js";
import {
  RESEARCH_TIMEOUT_MS, SUGGEST_TIMEOUT_MS, errorMessage, loadSettings, request,
} from "./client.js";
import { progressLine, renderDigest, renderStrip, serverEvents } from "./ui.js";

const $ = (id) => document.getElementById(id);
const inputs = {
  url: $("url"), title: $("title"), description: $("description"), slug: $("slug"), tags: $("tags"),
};

/**
 * The tab to describe: the active tab of the popup's window, or the tab named by ?tab=<id>.
 * The parameter lets the popup be opened as a page (tests, keyboard users who pin it); it
 * grants nothing, because popup.html is not web-accessible and reading a tab still needs
 * the activeTab grant that clicking the toolbar button gives.
 */
async function targetTab() {
  const wanted = Number(new URLSearchParams(location.search).get("tab"));
  if (Number.isSafeInteger(wanted) && wanted > 0) {
    try {
      return await ext.tabs.get(wanted);
    } catch {
      // the tab is gone: describe the active one instead
    }
  }
  const [tab] = await ext.tabs.query({ active: true, currentWindow: true });
  return tab;
}

/** Runs inside the page: its address, title and description (meta, else Open Graph). */
function pageMetadata() {
  const content = (selector) => (document.querySelector(selector)?.getAttribute("content") || "").trim();
  return {
    url: location.href,
    title: (document.title || "").trim() || content('meta[property="og:title"]'),
    description:
      content('meta[name="description" i]') ||
      content('meta[property="og:description"]') ||
      content('meta[name="og:description"]'),
  };
}

// The browser's own pages. Whether a tab's address shows on them depends on the browser's
// version and on how the click granted activeTab, so the scheme decides, not the address's absence.
const BROWSER_SCHEMES = new Set([
  "about:", "chrome:", "chrome-error:", "chrome-extension:", "chrome-search:", "chrome-untrusted:",
  "devtools:", "edge:", "brave:", "opera:", "vivaldi:", "view-source:",
]);

/** True for an address of the browser's own pages, which sleuth neither reads nor sends. */
export function isBrowserPage(url) {
  try {
    return BROWSER_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

/** The page's details; on privileged pages (the web store, an error page) the tab's title. */
async function readPage(tab) {
  const page = { url: tab?.url || "", title: tab?.title || "", description: "" };
  if (isBrowserPage(page.url)) return { url: "", title: "", description: "" };
  if (!tab?.id) return page;
  try {
    const [injection] = await ext.scripting.executeScript({ target: { tabId: tab.id }, func: pageMetadata });
    const found = injection?.result;
    if (found) {
      page.url = found.url || page.url;
      page.title = found.title || page.title;
      page.description = found.description || "";
    }
  } catch {
    // executeScript is refused on privileged pages: keep what the tab itself says
  }
  page.title = page.title.slice(0, 500);
  page.description = page.description.slice(0, 2000);
  return page;
}

function hostOf(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.host : "";
  } catch {
    return "";
  }
}

/** The site to keep research on: the host name as sleuth's `site` filter reads it (no www.). */
function siteOf(url) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "";
    return parsed.hostname.replace(/^www\./, "");
  } catch {
    return "";
  }
}

function say(text, kind = "") {
  $("status").textContent = text;
  $("status").className = `status ${kind}`.trim();
}

/** Suggestions layer on top of a form that already works; any failure leaves no trace. */
async function suggest(settings, page) {
  document.body.dataset.suggest = "pending";
  let shown = false;
  try {
    if (settings.server && (page.url || page.title)) {
      const response = await request(settings, "/api/v1/links/suggest", {
        method: "POST",
        body: { url: page.url, title: page.title, description: page.description },
        timeoutMs: SUGGEST_TIMEOUT_MS,
      });
      if (response.status === 200) {
        const suggestion = await response.json();
        if (suggestion && typeof suggestion === "object" && !Array.isArray(suggestion)) {
          shown = renderStrip($("strip"), suggestion, inputs);
        }
      }
    }
  } catch {
    // network error, timeout or a body that is not JSON: silently no strip
  } finally {
    document.body.dataset.suggest = shown ? "shown" : "hidden";
  }
}

async function research(settings) {
  if (!settings.server) {
    $("setup").hidden = false;
    say("Set the server first (Options).", "error");
    return;
  }
  const title = inputs.title.value.trim();
  if (!title) {
    say("The page has no title to research; type one in the Title field.", "error");
    inputs.title.focus();
    return;
  }
  const site = siteOf(inputs.url.value);
  const button = $("research");
  button.disabled = true;
  $("digest").replaceChildren();
  say(site ? `Researching on ${site}…` : "Researching…", "busy");
  const deadline = new AbortController();  // for the whole run, the stream included
  const timer = setTimeout(() => deadline.abort(), RESEARCH_TIMEOUT_MS);
  try {
    const response = await request(settings, "/api/v1/research", {
      method: "POST",
      body: site ? { question: title, site: [site] } : { question: title },
      timeoutMs: RESEARCH_TIMEOUT_MS,
      accept: "text/event-stream",
      signal: deadline.signal,
    });
    if (!response.ok) {
      const why = response.status === 401
        ? "The server refused the token: check it in the options."
        : await errorMessage(response);
      say(`Research failed: ${why}`, "error");
      return;
    }
    let digest = null;
    if ((response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      // Progress as the server reports it, then one result or error.
      for await (const { event, data } of serverEvents(response)) {
        const payload = JSON.parse(data);
        if (event === "progress") {
          say(progressLine(payload.stage, payload.detail || {}), "busy");
        } else if (event === "result") {
          digest = payload;
        } else if (event === "error") {
          say(`Research failed: ${payload.error || payload.code}`, "error");
          return;
        }
      }
      if (!digest) {
        say("The server closed the stream before the result: try again.", "error");
        return;
      }
    } else {
      digest = await response.json();
    }
    renderDigest($("digest"), digest);
    const count = (digest.bullets || []).length;
    say(count ? `${count} cited point${count === 1 ? "" : "s"}.` : "");
  } catch (error) {
    say(error?.name === "AbortError"
      ? "Research took too long and was stopped."
      : `Cannot reach the server at ${settings.server}: is it running, and does it allow this extension (SLEUTH_CORS_ORIGINS)?`,
    "error");
  } finally {
    clearTimeout(timer);
    button.disabled = false;
  }
}

/** "Title" <URL> — description: what a person pastes into notes or a chat. */
export function citationText(title, url, description) {
  const head = title ? `${title} <${url}>` : `<${url}>`;
  return description ? `${head} — ${description}` : head;
}

async function copyCitation() {
  const text = citationText(inputs.title.value.trim(), inputs.url.value.trim(), inputs.description.value.trim());
  const box = $("citation");
  box.value = text;
  box.hidden = false;
  try {
    await navigator.clipboard.writeText(text);
    say("Citation copied.");
  } catch {
    box.focus();
    box.select();
    say("Copying was not allowed: the citation is selected above, press Ctrl+C.");
  }
}

async function main() {
  const openOptions = () => ext.runtime.openOptionsPage();
  $("open-options").addEventListener("click", openOptions);
  $("setup-options").addEventListener("click", openOptions);
  $("copy").addEventListener("click", copyCitation);

  const [settings, tab] = await Promise.all([loadSettings(), targetTab()]);
  $("setup").hidden = Boolean(settings.server);
  $("page-form").addEventListener("submit", (event) => {
    event.preventDefault();
    research(settings);
  });

  const page = await readPage(tab);
  inputs.url.value = page.url;
  inputs.title.value = page.title;
  inputs.description.value = page.description;
  $("host").textContent = hostOf(page.url);
  if (!page.url && !page.title) {
    // Chromium hides even the address of its own pages (chrome://) from activeTab.
    say("This is one of the browser's own pages, which extensions may not read: there is nothing here to research or cite.");
  }
  document.body.dataset.page = "ready";
  await suggest(settings, page);
}

main();
