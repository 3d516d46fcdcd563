// A small Markdown renderer for the subset sleuth's extraction writes: headings, paragraphs,
// lists (nested by two spaces), block quotes, fenced code, tables, and inline emphasis, code
// and links. Fetched text is untrusted page content, so every piece becomes a text node or an
// element built here: no HTML string is ever parsed, no image is loaded, and only http(s)
// addresses become links (opened with rel="noopener noreferrer").

const FENCE = /^(```+|~~~+)\s*$/;
const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const RULE = /^\s*([-*_])(?:\s*\1){2,}\s*$/;
const TABLE_RULE = /^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

// One inline token at a time: code, strong, emphasis, link or image, an escaped character.
const INLINE = new RegExp(
  [
    "(`+)([^`]|[^`][\\s\\S]*?[^`])\\1(?!`)", // 1,2: code
    "\\*\\*(?=\\S)([\\s\\S]*?\\S)\\*\\*", // 3: strong
    "__(?=\\S)([\\s\\S]*?\\S)__", // 4: strong
    "\\*(?=[^\\s*])([\\s\\S]*?[^\\s*])\\*", // 5: emphasis
    "(?<![\\w])_(?=[^\\s_])([\\s\\S]*?[^\\s_])_(?![\\w])", // 6: emphasis
    "(!?)\\[((?:[^\\[\\]\\\\]|\\\\.)*)\\]\\(\\s*((?:[^\\s()]|\\([^\\s()]*\\))+)(?:\\s+\"[^\"]*\")?\\s*\\)", // 7,8,9: link
    "\\\\([\\\\`*_{}\\[\\]()#+\\-.!|>~])", // 10: escape
  ].join("|"),
  "g",
);

function element(tag, className = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  return node;
}

/** An absolute http(s) address for `url` (resolved against `base`), else null. */
export function safeLink(url, base) {
  try {
    const parsed = base ? new URL(url, base) : new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Append `text`'s inline Markdown to `parent` as text nodes and elements. */
function inline(parent, text, base) {
  let last = 0;
  INLINE.lastIndex = 0;
  for (let match = INLINE.exec(text); match; match = INLINE.exec(text)) {
    if (match.index > last) parent.append(text.slice(last, match.index));
    last = INLINE.lastIndex;
    if (match[2] !== undefined) {
      const code = element("code");
      code.textContent = match[2].replace(/^ (.*) $/, "$1");
      parent.append(code);
    } else if (match[3] !== undefined || match[4] !== undefined) {
      const strong = element("strong");
      inline(strong, match[3] ?? match[4], base);
      parent.append(strong);
    } else if (match[5] !== undefined || match[6] !== undefined) {
      const em = element("em");
      inline(em, match[5] ?? match[6], base);
      parent.append(em);
    } else if (match[8] !== undefined) {
      const image = match[7] === "!";
      const href = safeLink(match[9], base);
      if (!href) {
        // Not an http(s) address (javascript:, data: ...): shown exactly as the page wrote it.
        parent.append(match[0]);
      } else {
        // Images stay links: the page loads nothing from the fetched site.
        const node = element("a", image ? "md-image" : "");
        node.href = href;
        node.target = "_blank";
        node.rel = "noopener noreferrer";
        inline(node, match[8] || (image ? "image" : match[9]), base);
        parent.append(node);
      }
    } else {
      parent.append(match[10]);
    }
    // The nested calls above reset the shared expression; carry on from this token.
    INLINE.lastIndex = last;
  }
  if (last < text.length) parent.append(text.slice(last));
}

/** A table row's cells: split on `|` that is not escaped, outer pipes dropped. */
function cells(line) {
  const parts = [];
  let current = "";
  const body = line.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "");
  for (let i = 0; i < body.length; i += 1) {
    if (body[i] === "\\" && body[i + 1] === "|") {
      current += "|";
      i += 1;
    } else if (body[i] === "|") {
      parts.push(current.trim());
      current = "";
    } else {
      current += body[i];
    }
  }
  parts.push(current.trim());
  return parts;
}

function table(lines, base) {
  const wrap = element("div", "md-table");
  const node = element("table");
  const header = lines.length > 1 && TABLE_RULE.test(lines[1]);
  const rows = lines.filter((line, index) => !(header && index === 1));
  let body = null;
  rows.forEach((line, index) => {
    const isHead = header && index === 0;
    const row = element("tr");
    for (const cell of cells(line)) {
      const td = element(isHead ? "th" : "td");
      inline(td, cell, base);
      row.append(td);
    }
    if (isHead) {
      const thead = element("thead");
      thead.append(row);
      node.append(thead);
    } else {
      body ??= node.appendChild(element("tbody"));
      body.append(row);
    }
  });
  wrap.append(node);
  return wrap;
}

/** Lists from consecutive item lines; two more spaces of indent open a nested list. */
function list(lines, base) {
  const roots = [];
  const stack = []; // {indent, node, item}
  for (const line of lines) {
    const match = ITEM.exec(line);
    if (!match) {
      // A continuation (a definition's indented text): part of the item above.
      const open = stack.at(-1);
      if (open?.item) {
        open.item.append(" ");
        inline(open.item, line.trim(), base);
      }
      continue;
    }
    const indent = match[1].replace(/\t/g, "  ").length;
    const ordered = /\d/.test(match[2]);
    while (stack.length && stack.at(-1).indent > indent) stack.pop();
    let open = stack.at(-1);
    if (open && open.indent === indent && open.ordered !== ordered) {
      stack.pop();
      open = stack.at(-1);
    }
    if (!open || open.indent < indent) {
      const node = element(ordered ? "ol" : "ul");
      if (ordered && parseInt(match[2], 10) !== 1) node.start = parseInt(match[2], 10);
      if (open?.item) open.item.append(node);
      else roots.push(node);
      open = { indent, ordered, node, item: null };
      stack.push(open);
    }
    const item = element("li");
    inline(item, match[3], base);
    open.node.append(item);
    open.item = item;
  }
  return roots;
}

/** Render Markdown `text` into `slot` (emptied first); links resolve against `base`. */
export function renderMarkdown(slot, text, base = "") {
  slot.replaceChildren(...blocks(String(text ?? "").replace(/\r\n?/g, "\n").split("\n"), base));
}

function blocks(lines, base) {
  const out = [];
  let i = 0;
  const take = (test) => {
    const taken = [];
    while (i < lines.length && lines[i].trim() !== "" && test(lines[i])) taken.push(lines[i++]);
    return taken;
  };
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const fence = FENCE.exec(line.trim());
    if (fence) {
      const code = [];
      i += 1;
      while (i < lines.length && lines[i].trim() !== fence[1]) code.push(lines[i++]);
      i += 1;
      const pre = element("pre");
      const inner = element("code");
      inner.textContent = code.join("\n");
      pre.append(inner);
      out.push(pre);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      // The fetched page's title is the card's h3, so the page's own headings sit below it.
      const level = Math.min(6, heading[1].length + 3);
      const node = element(`h${level}`, `md-h${heading[1].length}`);
      inline(node, heading[2], base);
      out.push(node);
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      out.push(element("hr"));
      i += 1;
      continue;
    }
    if (line.trimStart().startsWith(">")) {
      const quoted = take((l) => l.trimStart().startsWith(">"));
      const node = element("blockquote");
      node.append(...blocks(quoted.map((l) => l.trimStart().replace(/^> ?/, "")), base));
      out.push(node);
      continue;
    }
    if (line.trimStart().startsWith("|")) {
      out.push(table(take((l) => l.trimStart().startsWith("|")), base));
      continue;
    }
    if (ITEM.test(line)) {
      out.push(...list(take((l) => ITEM.test(l) || /^\s+\S/.test(l)), base));
      continue;
    }
    const paragraph = take(
      (l) => !HEADING.test(l) && !FENCE.test(l.trim()) && !l.trimStart().startsWith("|")
        && !ITEM.test(l) && !l.trimStart().startsWith(">"),
    );
    if (paragraph.length === 0) {
      // A line no rule above took (e.g. a lone fence inside text): keep it as text.
      paragraph.push(lines[i++]);
    }
    const node = element("p");
    paragraph.forEach((text, index) => {
      if (index) node.append(element("br"));
      inline(node, text.trim(), base);
    });
    out.push(node);
  }
  return out;
}
