// @ts-check
// For course pages that embed the playground as an iframe: keeps each
// iframe as tall as its content, and tells it the page's colour scheme.
// Include once, as a classic script (it imports and exports nothing, so it
// also loads from the playground's own origin into a course site on another
// one, with no CORS header needed):
//   <script src="…/iframe-resize.js"></script>
// (`type="module"` works too when it is served from the course's origin.)
// Messages are checked: only {source: "agent-loop-playground", …} from one
// of this page's own iframes is used; a resize message's height must be a
// positive number.
// (in a function of its own: a classic script's top-level names would be
// the course page's globals)
(() => {
  const SOURCE = "agent-loop-playground";
  /** The iframes that spoke, and their origin (the only one told anything). @type {Map<HTMLIFrameElement, string>} */
  const spoke = new Map();
  /** The scheme each was told last (told again only when it changes). @type {Map<HTMLIFrameElement, string>} */
  const told = new Map();
  const systemDark = matchMedia("(prefers-color-scheme: dark)");

  // This page's scheme as the browser draws it: dark where it declares only
  // dark, or both with a dark system; light where it declares light, or none.
  function scheme() {
    const words = getComputedStyle(document.body || document.documentElement).colorScheme.split(/\s+/);
    const dark = words.includes("dark");
    return dark && (!words.includes("light") || systemDark.matches) ? "dark" : "light";
  }

  /**
   * Tell a frame this page's scheme, if it changed since it was told. A
   * sandboxed frame without allow-same-origin has the origin "null", which
   * no message can be addressed to: it is not told (and still resized).
   * @param {HTMLIFrameElement} frame
   * @param {boolean} [again] tell even an unchanged scheme (the frame loaded again)
   */
  function tell(frame, again = false) {
    const origin = spoke.get(frame);
    const theme = scheme();
    if (!origin || origin === "null" || !frame.contentWindow || (!again && told.get(frame) === theme)) return;
    told.set(frame, theme);
    try {
      frame.contentWindow.postMessage({ source: SOURCE, type: "theme", theme }, origin);
    } catch {
      // (an origin the browser will not address: nothing is told)
    }
  }
  function tellAll() {
    spoke.forEach((_, frame) => {
      // (a frame taken out of the page is forgotten)
      if (frame.isConnected) tell(frame);
      else {
        spoke.delete(frame);
        told.delete(frame);
      }
    });
  }

  window.addEventListener("message", (event) => {
    const m = event.data;
    if (!m || typeof m !== "object" || m.source !== SOURCE) return;
    const frame = [...document.querySelectorAll("iframe")].find((f) => f.contentWindow === event.source);
    if (!frame) return;
    const known = spoke.has(frame);
    spoke.set(frame, event.origin);
    // Its first word, and a ready (a frame loaded again): told the scheme.
    if (m.type === "resize" && Number.isFinite(m.height) && m.height > 0) {
      frame.height = String(Math.min(Math.ceil(m.height), 20000));
    }
    frame.dispatchEvent(new CustomEvent("playground-message", { detail: m }));
    if (!known || m.type === "ready") tell(frame, true);
  });
  // The page switches its scheme (a class or attribute on <html> or <body>),
  // or the system does.
  systemDark.addEventListener("change", tellAll);
  const watch = { attributes: true, attributeFilter: ["class", "style", "data-theme", "data-color-scheme"] };
  const observer = new MutationObserver(tellAll);
  observer.observe(document.documentElement, watch);
  if (document.body) observer.observe(document.body, watch);
  else document.addEventListener("DOMContentLoaded", () => document.body && observer.observe(document.body, watch), { once: true });
})();
