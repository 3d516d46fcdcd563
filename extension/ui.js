// The parts the extension popup and the web page share: the "✦ Suggested" strip, the
// digest view and research progress read from server-sent events. The web page serves the
// same file from src/sleuth/server/static/ui.js; a test keeps the two copies identical,
// because the extension may load no remote code.
// Everything is built with textContent and attributes: no HTML string is ever parsed.

/** The fields a suggestion can fill, in the order the strip shows them. */
export const SUGGESTED_FIELDS = [
  ["slug", "slug"],
  ["title", "title"],
  ["description", "desc"],
  ["tags", "tags"],
];

/** A field's value as the form input takes it; tags become "a, b, c". */
export function fieldValue(suggestion, name) {
  const value = suggestion ? suggestion[name] : undefined;
  if (Array.isArray(value)) {
    return value.map((tag) => String(tag).trim()).filter(Boolean).join(", ");
  }
  return typeof value === "string" ? value.trim() : "";
}

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text) node.textContent = text;
  return node;
}

/**
 * Put the strip into `slot` (emptied first). `inputs` maps a field name to the input it
 * fills. Rows appear only for non-empty fields whose input exists; with none, nothing is
 * shown and false is returned.
 */
export function renderStrip(slot, suggestion, inputs) {
  slot.replaceChildren();
  const rows = SUGGESTED_FIELDS.filter(
    ([name]) => inputs[name] && fieldValue(suggestion, name) !== "",
  );
  if (rows.length === 0) return false;

  const strip = element("section", { class: "suggested", "aria-label": "Suggested values" });
  const head = element("div", { class: "suggested-head" });
  head.append(element("span", { class: "suggested-title" }, "✦ Suggested"));
  const dismiss = element("button", {
    type: "button",
    class: "suggested-dismiss",
    "aria-label": "Dismiss suggestions",
    title: "Dismiss",
  }, "×");
  dismiss.addEventListener("click", () => slot.replaceChildren());
  head.append(dismiss);
  strip.append(head);

  const list = element("dl", { class: "suggested-rows" });
  for (const [name, label] of rows) {
    const value = fieldValue(suggestion, name);
    const row = element("div", { class: "suggested-row", "data-field": name });
    row.append(element("dt", {}, `${label}:`));
    const cell = element("dd", {});
    if (name === "tags") {
      for (const tag of value.split(", ")) cell.append(element("span", { class: "tag" }, tag));
    } else {
      cell.append(element("span", { class: "suggested-value" }, value));
    }
    const use = element("button", {
      type: "button",
      class: "suggested-use",
      "aria-label": `Use the suggested ${name}`,
    }, "Use");
    use.addEventListener("click", () => {
      const input = inputs[name];
      input.value = value;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      use.textContent = "Used";
      row.classList.add("used");
    });
    cell.append(use);
    row.append(cell);
    list.append(row);
  }
  strip.append(list);
  slot.append(strip);
  return true;
}

/** A safe link target: only http(s) URLs become links. */
function safeHref(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Render a research digest (the CLI's --json object) into `slot`: bullets, then sources. */
export function renderDigest(slot, digest) {
  slot.replaceChildren();
  const citations = new Map((digest.citations || []).map((c) => [c.id, c]));
  const bullets = digest.bullets || [];
  if (bullets.length === 0) {
    const why = (digest.errors || []).map((e) => e.message).filter(Boolean);
    slot.append(element("p", { class: "empty" },
      why.length ? `No cited answer: ${why[0]}` : "No cited answer: nothing relevant was found."));
    return;
  }
  const list = element("ul", { class: "bullets" });
  for (const bullet of bullets) {
    const item = element("li", {}, bullet.text);
    for (const id of bullet.citations || []) {
      const citation = citations.get(id);
      const href = citation && safeHref(citation.url);
      item.append(" ");
      if (href) {
        const link = element("a", {
          class: "cite",
          href,
          target: "_blank",
          rel: "noopener noreferrer",
          title: citation.title || citation.url,
        }, `[${id}]`);
        item.append(link);
      } else {
        item.append(element("span", { class: "cite" }, `[${id}]`));
      }
    }
    list.append(item);
  }
  slot.append(list);

  const sources = element("ol", { class: "sources", "aria-label": "Sources" });
  for (const citation of digest.citations || []) {
    const item = element("li", { value: String(citation.id) });
    const href = safeHref(citation.url);
    const name = citation.title || citation.url;
    item.append(href
      ? element("a", { href, target: "_blank", rel: "noopener noreferrer" }, name)
      : element("span", {}, name));
    if (citation.domain) item.append(element("span", { class: "domain" }, ` ${citation.domain}`));
    sources.append(item);
  }
  slot.append(sources);
}

/** One line for a research progress event, in the words the CLI uses. */
export function progressLine(stage, detail = {}) {
  switch (stage) {
    case "searching":
      return `searching for ${detail.query ?? ""}`.trim();
    case "reading":
      return `reading ${detail.pages ?? 0} pages`;
    case "page":
      return `read ${detail.url ?? ""} (${detail.outcome ?? ""})`;
    case "ranking":
      return `ranking passages from ${detail.pages ?? 0} pages`;
    default:
      return stage;
  }
}

/** Server-sent events from a streamed response body, as {event, data} objects. */
export async function* serverEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
      let event = "message";
      const data = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const text = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = text;
        else if (field === "data") data.push(text);
      }
      if (data.length) yield { event, data: data.join("\n") };
    }
  }
}
