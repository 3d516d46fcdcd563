// sleuth's web page: research with live progress, fetch a page, suggest a link's details.
// Plain modules, no framework and nothing from another host: everything here is served
// by `sleuth serve` itself.
import { renderMarkdown } from "/static/markdown.js";
import { progressLine, renderDigest, renderStrip, serverEvents } from "/static/ui.js";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "sleuth.token";

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

function say(id, text, kind = "") {
  const node = $(id);
  node.textContent = text;
  node.className = `status ${kind}`.trim();
}

class ApiError extends Error {
  constructor(message, status, payload = {}) {
    super(message);
    this.status = status;
    this.code = payload.code || "";
    this.payload = payload;
  }
}

/** POST a JSON body to the API with the saved token; non-2xx answers become ApiError. */
async function post(path, body, { accept = "application/json", signal } = {}) {
  const headers = { "Content-Type": "application/json", Accept: accept };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  let response;
  try {
    response = await fetch(path, { method: "POST", headers, body: JSON.stringify(body), signal });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new ApiError("The server cannot be reached: is `sleuth serve` still running?", 0, { code: "unreachable" });
  }
  if (!response.ok) {
    let message = `HTTP ${response.status}`;
    let payload = {};
    try {
      payload = (await response.json()) || {};
      message = payload.error || message;
    } catch {
      // not JSON: keep the status line
    }
    if (response.status === 401) {
      $("token-card").hidden = false;
      message = token()
        ? "The server refused the token: enter a valid one above."
        : "The server needs a token: enter one of its SLEUTH_API_TOKENS above.";
      $("token").focus();
    }
    throw new ApiError(message, response.status, payload);
  }
  return response;
}

// --- token -------------------------------------------------------------------

function showTokenState() {
  $("token").value = "";
  $("token").placeholder = token() ? "saved for this tab (type to replace)" : "one of the server's SLEUTH_API_TOKENS";
  $("token-status").textContent = token()
    ? "A token is saved for this tab (sessionStorage) and sent on every API call."
    : "No token saved. Servers without SLEUTH_API_TOKENS need none.";
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const value = $("token").value.trim();
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  showTokenState();
});
$("token-forget").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showTokenState();
});

// --- what the server offers ---------------------------------------------------

/**
 * Ask the server (unauthenticated) whether it needs a token and has a model, so the page
 * shows the token card only when it matters and says up front that suggestions are off.
 * If the server cannot say, the token card is shown: a 401 would need it.
 */
async function learnServer() {
  let info = null;
  try {
    const response = await fetch("/api/v1/info", { headers: { Accept: "application/json" } });
    if (response.ok) info = await response.json();
  } catch {
    // unreachable: the first API call will say so
  }
  $("token-card").hidden = info ? info.auth_required !== true : false;
  if (info && info.llm_configured === false) {
    $("suggest-off").hidden = false;
    $("suggest-go").disabled = true;
    $("suggest-go").title = "No model is configured on this server";
  }
  document.body.dataset.auth = info ? String(info.auth_required === true) : "unknown";
  document.body.dataset.llm = info ? String(info.llm_configured === true) : "unknown";
}

// --- research ----------------------------------------------------------------

let running = null;

const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** The run's one-line summary: points, the sources they cite, the pages read. */
function summary(digest) {
  const bullets = digest.bullets || [];
  if (bullets.length === 0) return "Done: no cited answer.";
  const cited = new Set(bullets.flatMap((bullet) => bullet.citations || []));
  const pages = digest.meta?.fetched_pages ?? (digest.citations || []).length;
  const seconds = ((digest.meta?.elapsed_ms ?? 0) / 1000).toFixed(1);
  return `${plural(bullets.length, "point")} citing ${plural(cited.size, "source")}`
    + ` · ${plural(pages, "page")} read in ${seconds} s.`;
}

/** Give the digest's sources list a visible heading (the list is shared with the extension). */
function headSources(slot) {
  const sources = slot.querySelector(".sources");
  if (!sources) return;
  const heading = document.createElement("h3");
  heading.id = "research-sources-heading";
  heading.className = "sources-heading";
  heading.textContent = "Sources";
  sources.removeAttribute("aria-label");
  sources.setAttribute("aria-labelledby", heading.id);
  sources.before(heading);
}

/** Fold the progress away once the run has ended; its summary says how many steps. */
function foldSteps() {
  const steps = $("research-steps");
  const count = $("research-progress").children.length;
  steps.open = false;
  steps.hidden = count === 0;
  $("research-steps-summary").textContent = `How it was researched (${plural(count, "step")})`;
}

function finishResearch(digest) {
  renderDigest($("research-digest"), digest);
  headSources($("research-digest"));
  say("research-status", summary(digest));
}

async function research(question) {
  running?.abort();
  const controller = new AbortController();
  running = controller;
  const progress = $("research-progress");
  progress.replaceChildren();
  $("research-steps").hidden = false;
  $("research-steps").open = true;
  $("research-steps-summary").textContent = "Progress";
  $("research-digest").replaceChildren();
  $("research-go").disabled = true;
  $("research-stop").hidden = false;
  document.body.dataset.research = "running";
  say("research-status", "Researching…", "busy");
  try {
    const response = await post("/api/v1/research", { question }, {
      accept: "text/event-stream", signal: controller.signal,
    });
    if (!(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
      finishResearch(await response.json());
      return;
    }
    let ended = false;
    for await (const { event, data } of serverEvents(response)) {
      const payload = JSON.parse(data);
      if (event === "progress") {
        const item = document.createElement("li");
        item.textContent = progressLine(payload.stage, payload.detail || {});
        progress.append(item);
      } else if (event === "result") {
        finishResearch(payload);
        ended = true;
      } else if (event === "error") {
        say("research-status", `Research failed: ${payload.error || payload.code}`, "error");
        ended = true;
      }
    }
    if (!ended) say("research-status", "The server closed the stream before the result: try again.", "error");
  } catch (error) {
    if (error?.name === "AbortError") {
      // Stopped: closing the stream also stops the server's run.
      if (running === controller) say("research-status", "Stopped.");
      return;
    }
    say("research-status", `Research failed: ${error.message}`, "error");
  } finally {
    if (running === controller) {
      running = null;
      $("research-go").disabled = false;
      $("research-stop").hidden = true;
      foldSteps();
      document.body.dataset.research = "done";
    }
  }
}

$("research-stop").addEventListener("click", () => {
  running?.abort();
  $("research-question").focus();
});

$("research-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const question = $("research-question").value.trim();
  if (question) research(question);
});

// --- fetch -------------------------------------------------------------------

function showFetched({ title, outcome, url, text, markdown = false }) {
  $("fetch-title").textContent = title || url;
  $("fetch-outcome").textContent = outcome;
  $("fetch-outcome").dataset.outcome = outcome;
  $("fetch-final").textContent = url;
  if (/^https?:/i.test(url)) $("fetch-final").href = url;
  else $("fetch-final").removeAttribute("href");
  if (markdown) renderMarkdown($("fetch-text"), text, /^https?:/i.test(url) ? url : "");
  else $("fetch-text").replaceChildren(Object.assign(document.createElement("p"), { textContent: text }));
  $("fetch-result").hidden = false;
}

/** Show a page's extracted text, or (when it was not read) its outcome and why. */
async function fetchPage(url) {
  $("fetch-go").disabled = true;
  $("fetch-result").hidden = true;
  say("fetch-status", `Fetching ${url}…`, "busy");
  try {
    const page = await (await post("/api/v1/fetch", { url, format: "markdown" })).json();
    const final = page.final_url || page.url;
    showFetched({
      title: page.title, outcome: page.outcome, url: final, text: page.text || "(no text)", markdown: true,
    });
    const chars = (page.text || "").length;
    say("fetch-status", `${chars.toLocaleString()} characters${page.truncated ? " (truncated)" : ""}${page.cache === "hit" ? ", from the cache" : ""}.`);
  } catch (error) {
    if (error.payload?.url) {
      // The server answered for the page: its outcome (blocked, http_error, timeout ...) is the result.
      const status = error.payload.status ? ` (HTTP ${error.payload.status})` : "";
      // Error codes are upper case on the wire; outcomes read as `sleuth fetch --json` prints them.
      const outcome = error.code.toLowerCase();
      showFetched({ title: "", outcome, url: error.payload.url, text: error.message });
      say("fetch-status", `Not read: ${error.message}${status}`, "error");
    } else {
      say("fetch-status", `Fetch failed: ${error.message}`, "error");
    }
  } finally {
    $("fetch-go").disabled = false;
  }
}

$("fetch-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const url = $("fetch-url").value.trim();
  if (url) fetchPage(url);
});

// --- suggest -----------------------------------------------------------------

const suggestInputs = {
  slug: $("suggest-slug"),
  title: $("suggest-title"),
  description: $("suggest-description"),
  tags: $("suggest-tags"),
};

async function suggest() {
  const body = {
    url: $("suggest-url").value.trim(),
    title: $("suggest-title").value.trim(),
    description: $("suggest-description").value.trim(),
  };
  $("suggest-go").disabled = true;
  $("suggest-strip").replaceChildren();
  say("suggest-status", "Asking for suggestions…", "busy");
  try {
    const suggestion = await (await post("/api/v1/links/suggest", body)).json();
    const shown = renderStrip($("suggest-strip"), suggestion, suggestInputs);
    say("suggest-status", shown ? "" : "The model had nothing to suggest for this page.");
  } catch (error) {
    const message = error.status === 503
      ? "Suggestions are off on this server (no LLM configured)."
      : `No suggestions: ${error.message}`;
    say("suggest-status", message, "error");
  } finally {
    $("suggest-go").disabled = false;
  }
}

$("suggest-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if ($("suggest-go").disabled) return; // no model, or a request already out
  suggest();
});

showTokenState();
learnServer().finally(() => {
  document.body.dataset.ready = "true";
});
