// Talking to the sleuth server: the saved settings, and requests with the bearer token and
// a deadline. The popup and the options page both go through here.
import { ext } from "./ext.js";

export const SUGGEST_TIMEOUT_MS = 20000;
export const RESEARCH_TIMEOUT_MS = 120000;

/** The server URL and token saved by the options page ({server: "", token: ""} if unset). */
export async function loadSettings() {
  const saved = await ext.storage.local.get(["server", "token"]);
  return { server: saved.server || "", token: saved.token || "" };
}

/**
 * The server's base URL in one form (no trailing slash), or an Error saying what is wrong.
 * Only http(s) is accepted; plain http is allowed for loopback and LAN servers.
 */
export function normaliseServer(text) {
  const value = (text || "").trim();
  if (!value) return new Error("Enter the server's URL, for example http://127.0.0.1:8080");
  let url;
  try {
    url = new URL(value);
  } catch {
    return new Error(`"${value}" is not a URL; write it as http://host:port`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return new Error(`The server URL must start with http:// or https://, not ${url.protocol}//`);
  }
  if (url.search || url.hash || url.username || url.password) {
    return new Error("The server URL takes no query, fragment or user name: only scheme, host, port and path");
  }
  return url.origin + url.pathname.replace(/\/+$/, "");
}

/**
 * A request to the server; rejects with TypeError on network errors and AbortError when
 * `timeoutMs` passes before the answer starts, or when the caller's `signal` aborts (a
 * caller reading a long body passes its own signal, so its deadline covers the body too).
 */
export async function request(settings, path, {
  method = "GET", body, timeoutMs = 15000, auth = true, accept = "application/json", signal,
} = {}) {
  const headers = { Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth && settings.token) headers.Authorization = `Bearer ${settings.token}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    return await fetch(settings.server + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: signal ? AbortSignal.any([signal, controller.signal]) : controller.signal,
      credentials: "omit",
      cache: "no-store",
    });
  } finally {
    clearTimeout(timer);
  }
}

/** The server's own error message from a non-2xx answer, or the HTTP status. */
export async function errorMessage(response) {
  try {
    const payload = await response.json();
    if (payload && typeof payload.error === "string") return payload.error;
  } catch {
    // not JSON: fall through to the status line
  }
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
}
