// The options page: where the server is and which token to send, and a connection test
// that names the actual problem (wrong URL, server down, token refused, CORS).
import { ext } from "./ext.js";
import { errorMessage, loadSettings, normaliseServer, request } from "./client.js";

const $ = (id) => document.getElementById(id);
const TEST_TIMEOUT_MS = 8000;

function say(text, kind = "") {
  $("status").textContent = text;
  $("status").className = `status ${kind}`.trim();
}

function check(ok, text) {
  const item = document.createElement("li");
  item.className = ok ? "ok" : "fail";
  item.textContent = text;
  $("checks").append(item);
  return ok;
}

function formSettings() {
  const server = normaliseServer($("server").value);
  if (server instanceof Error) return server;
  return { server, token: $("token").value.trim() };
}

/** After a failed fetch: does anything answer at all? An opaque answer means it was CORS. */
async function answersAtAll(url) {
  try {
    await fetch(url, { mode: "no-cors", credentials: "omit", cache: "no-store" });
    return true;
  } catch {
    return false;
  }
}

function corsAdvice() {
  return `add ${location.origin} to SLEUTH_CORS_ORIGINS on the server and restart it`;
}

async function testConnection() {
  $("checks").replaceChildren();
  const settings = formSettings();
  if (settings instanceof Error) {
    say(settings.message, "error");
    return;
  }
  say(`Testing ${settings.server}…`, "busy");
  const verdict = await runChecks(settings);
  say(verdict ? "Connection works." : "Connection does not work yet: see above.", verdict ? "" : "error");
}

async function runChecks(settings) {
  // 1. Is a sleuth server there, and does it answer this origin?
  try {
    const health = await request(settings, "/healthz", { auth: false, timeoutMs: TEST_TIMEOUT_MS });
    if (!health.ok) {
      return check(false, `${settings.server}/healthz answered HTTP ${health.status}: is this the URL of \`sleuth serve\`?`);
    }
    check(true, `The server answers at ${settings.server}.`);
  } catch (error) {
    if (error?.name === "AbortError") {
      return check(false, `${settings.server} did not answer within ${TEST_TIMEOUT_MS / 1000} s.`);
    }
    if (await answersAtAll(`${settings.server}/healthz`)) {
      return check(false, `The server answers, but not to this extension (CORS): ${corsAdvice()}.`);
    }
    return check(false, `Cannot reach ${settings.server}: is \`sleuth serve\` running there, and is the URL right?`);
  }

  // 2. Is the token accepted on an authenticated route? (An empty search: nothing is run.)
  try {
    const probe = await request(settings, "/api/v1/search", {
      method: "POST", body: {}, timeoutMs: TEST_TIMEOUT_MS,
    });
    if (probe.status === 401 || probe.status === 403) {
      const why = await errorMessage(probe);
      return check(false, settings.token
        ? `The token was refused (HTTP ${probe.status}: ${why}): copy one of the server's SLEUTH_API_TOKENS.`
        : `The server needs a token (HTTP ${probe.status}): enter one of its SLEUTH_API_TOKENS.`);
    }
    if (probe.status === 429) {
      return check(false, "The server is rate-limiting this token (HTTP 429): wait a minute and test again.");
    }
    if (probe.status >= 500) {
      return check(false, `The API answered HTTP ${probe.status}: ${await errorMessage(probe)}.`);
    }
    check(true, settings.token ? "The token is accepted." : "The server needs no token.");
  } catch (error) {
    if (error?.name === "AbortError") {
      return check(false, `The API did not answer within ${TEST_TIMEOUT_MS / 1000} s.`);
    }
    return check(false, `The server does not let this extension send its token (CORS preflight refused): ${corsAdvice()}.`);
  }

  // 3. Are link suggestions on? Optional: the popup works either way. (An empty body is
  //    refused before any model is asked.)
  try {
    const probe = await request(settings, "/api/v1/links/suggest", {
      method: "POST", body: {}, timeoutMs: TEST_TIMEOUT_MS,
    });
    if (probe.status === 503) {
      const why = (await errorMessage(probe)).replace(/^link suggestions are off:\s*/i, "");
      check(true, `Link suggestions are off on this server (${why}); research and citations work.`);
    } else {
      check(true, "Link suggestions are on.");
    }
  } catch {
    check(true, "Link suggestions could not be checked; research and citations work.");
  }
  return true;
}

async function save(event) {
  event.preventDefault();
  const settings = formSettings();
  if (settings instanceof Error) {
    say(settings.message, "error");
    $("server").focus();
    return;
  }
  await ext.storage.local.set(settings);
  $("server").value = settings.server;
  say("Saved.");
}

async function main() {
  $("origin").textContent = location.origin;
  const saved = await loadSettings();
  $("server").value = saved.server;
  $("token").value = saved.token;
  $("options-form").addEventListener("submit", save);
  $("test").addEventListener("click", testConnection);
  document.body.dataset.ready = "true";
}

main();
