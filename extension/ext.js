// One name for the WebExtension API: Firefox's promise-based `browser`, else Chromium's
// `chrome` (whose Manifest V3 methods return promises too).
export const ext = globalThis.browser ?? globalThis.chrome;
