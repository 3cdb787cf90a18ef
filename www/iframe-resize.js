// @ts-check
// For course pages that embed the playground as an iframe: keeps each
// iframe as tall as its content. Include once, as a classic script (it
// imports and exports nothing, so it also loads from the playground's own
// origin into a course site on another one, with no CORS header needed):
//   <script src="…/iframe-resize.js"></script>
// (`type="module"` works too when it is served from the course's origin.)
// Messages are checked: only {source: "agent-loop-playground", type: "resize",
// height: number} from one of this page's own iframes is used.
window.addEventListener("message", (event) => {
  const m = event.data;
  if (!m || typeof m !== "object" || m.source !== "agent-loop-playground") return;
  const frame = [...document.querySelectorAll("iframe")].find((f) => f.contentWindow === event.source);
  if (!frame) return;
  if (m.type === "resize" && Number.isFinite(m.height) && m.height > 0) {
    frame.height = String(Math.min(Math.ceil(m.height), 20000));
  }
  frame.dispatchEvent(new CustomEvent("playground-message", { detail: m }));
});
