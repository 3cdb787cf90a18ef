// @ts-check
// The stand-alone page: reads ?function=&program=&scenario=&lang=&compact=1&…&embed=1 (the
// attributes the table marks `url`) and sets up one playground. In embed mode (an iframe in a course page) it hides
// the page chrome and talks to the parent with postMessage.
import { ATTRIBUTES } from "./element.js";

const params = new URLSearchParams(location.search);
// #program-src=…&scenario=…&lang=…&listing=…&breakpoints=…&step=…: where the learner was
// (kept up to date below); it wins over the query.
const fragment = new URLSearchParams(location.hash.slice(1));
const found = document.querySelector("agent-loop-playground");
if (!found) throw new Error("page.js: the page has no <agent-loop-playground>");
const el = found;
// The page's own default scenario is lesson one's: a function, program or
// recorded program (program-src) asked for picks its own.
const asked = (/** @type {string} */ key) => fragment.get(key) ?? params.get(key);
if ((asked("function") || asked("program") || asked("program-src")) && !asked("scenario")) el.removeAttribute("scenario");
// The attributes the URL sets are the table's (url: true); a flag is =1.
for (const { name, flag } of ATTRIBUTES.filter((a) => a.url)) {
  const value = asked(name);
  if (flag ? value === "1" : value) el.setAttribute(name, flag ? "" : String(value));
}
// #edit=…: the edited version a shared link shows (applied once ready).
const sharedEdit = asked("edit");
if (sharedEdit) {
  el.addEventListener("playground-ready", () => {
    try {
      el.whatIf(JSON.parse(sharedEdit));
    } catch (error) {
      console.warn(`agent-loop-playground: the link's edit was not applied: ${error instanceof Error ? error.message : error}`);
    }
  }, { once: true });
}
// ?theme=light|dark: the page around the playground too.
/** @param {unknown} theme */
function showTheme(theme) {
  if (theme !== "light" && theme !== "dark") return;
  if (el.getAttribute("theme") !== theme) el.setAttribute("theme", theme);
  document.documentElement.style.colorScheme = theme;
}
showTheme(el.getAttribute("theme"));

// The page's own words (its header and footer) follow the playground's
// language. Each part is written in one language (its lang=); the parts in
// the language shown are shown, and <html lang> is that language's tag:
// the one its table gives, which the playground writes on its root once it
// has drawn (docs/element-api.md), and until then the language asked for.
// A language the page is not written in shows each group's first part.
/** @type {HTMLElement[]} */
const parts = [...document.querySelectorAll(".page-head [lang], .page-foot [lang]")].filter((p) => p instanceof HTMLElement);
const codeOf = (/** @type {string} */ tag) => tag.toLowerCase().split(/[-_]/)[0];
/** @param {string | null | undefined} tag */
function showLanguage(tag) {
  // (only when it changes: setting it restyles the whole page, every step)
  if (!tag || document.documentElement.lang === tag) return;
  document.documentElement.lang = tag;
  for (const group of new Set(parts.map((p) => p.parentElement))) {
    const mine = parts.filter((p) => p.parentElement === group);
    const written = mine.some((p) => codeOf(p.lang) === codeOf(tag));
    const shown = written ? codeOf(tag) : codeOf(mine[0].lang);
    for (const p of mine) p.hidden = codeOf(p.lang) !== shown;
  }
}
showLanguage(el.getAttribute("lang"));
// What the page says of where the steps come from: a run CPython recorded
// (the program-src pack on screen), else the Rust core's.
function showSource() {
  const pack = el.getAttribute("program-src");
  const recorded = Boolean(pack) && el.state()?.program === pack;
  for (const part of document.querySelectorAll("[data-shows]")) {
    if (part instanceof HTMLElement) part.hidden = (part.dataset.shows === "recorded") !== recorded;
  }
}
showSource();
el.addEventListener("playground-ready", showSource);
for (const type of ["playground-ready", "playground-step"]) {
  el.addEventListener(type, () => showLanguage(el.shadowRoot?.querySelector(".alp-root")?.getAttribute("lang")));
}

const embed = params.get("embed") === "1";

/**
 * The fragment for a state: enough to open the same state() again.
 * @param {import("./element.js").PlaygroundState} state
 */
function fragmentOf(state) {
  const f = new URLSearchParams();
  // A recorded program's link names its pack: its scenarios are the pack's.
  const pack = el.getAttribute("program-src");
  if (pack) f.set("program-src", pack);
  f.set("scenario", state.scenario);
  f.set("lang", state.lang);
  f.set("listing", state.listing);
  if (state.breakpoints.length) f.set("breakpoints", state.breakpoints.map((b) => `${b.function}:${b.line}`).join(","));
  // Another loop beside the lesson's is (compare=, which opens it again);
  // an edited version is not (it opens the lesson's run): its step could be
  // past the lesson's end, so only the start is kept.
  const beside = state.compare && state.compare.function !== state.function;
  if (beside) f.set("compare", state.function);
  // An edited version is, while it is small enough for a link (it opens
  // again from the lesson's run; the step stays where both runs have it).
  const edit = state.whatIf && !beside ? JSON.stringify(el.currentEdit()) : "";
  if (edit && edit.length <= 6000) f.set("edit", edit);
  const shared = f.has("edit") && (state.compare?.partsAt ?? Infinity) >= state.step;
  if (state.started && (!state.whatIf || beside || shared)) f.set("step", String(state.step));
  if (state.predict) f.set("predict", "1");
  return f.toString().replaceAll("%3A", ":").replaceAll("%2C", ",").replaceAll("%2F", "/");
}
// The address bar follows the learner once the browser is idle after a move
// (writing it takes a few milliseconds: never between a click and its
// paint, and once for a burst of moves, a key held down).
let linkPending = false;
function writeLink() {
  linkPending = false;
  const state = el.state();
  if (state) history.replaceState(history.state, "", `#${fragmentOf(state)}`);
}
function keepLink() {
  // After the event's own work (a breakpoint click sends no step event).
  if (linkPending) return;
  linkPending = true;
  // The frame that draws the move first, then idle time: on a busy machine
  // the idle timeout alone could come before the frame.
  requestAnimationFrame(() => {
    if (typeof requestIdleCallback === "function") requestIdleCallback(writeLink, { timeout: 100 });
    else setTimeout(writeLink, 20);
  });
}
if (!embed) {
  // A fragment changed by the reader (or a link on the page) in the same
  // tab opens that state, as a fresh load of it would.
  addEventListener("hashchange", () => location.reload());
  for (const type of ["playground-ready", "playground-step", "playground-answer", "click", "change", "keyup"]) {
    el.addEventListener(type, keepLink);
  }
  const copy = document.querySelector("#copy-link");
  const shown = /** @type {HTMLInputElement | null} */ (document.querySelector("#copy-link-url"));
  const said = /** @type {HTMLElement | null} */ (document.querySelector("#copy-link-done"));
  // Copying the link: the address bar is written now.
  copy?.addEventListener("click", async () => {
    writeLink();
    const state = el.state();
    if (!state || !shown || !said) return;
    const url = `${location.href.split("#")[0]}#${fragmentOf(state)}`;
    try {
      await navigator.clipboard.writeText(url);
      said.hidden = false;
      shown.hidden = true;
    } catch {
      // No clipboard (permissions, an old browser): show the link to copy by hand.
      shown.value = url;
      shown.hidden = false;
      said.hidden = true;
      shown.select();
    }
  });
}
if (embed) {
  document.documentElement.classList.add("alp-embed");
  const SOURCE = "agent-loop-playground";
  // ?origin=https://course.example: talk only to that parent origin (posts go
  // nowhere else, commands from anywhere else are ignored). Without it the
  // state is posted to any parent ("*"): it is public anyway.
  const wanted = params.get("origin");
  /** @type {string | null} */
  let target = "*";
  if (wanted !== null) {
    let parsed = null;
    try {
      parsed = new URL(wanted).origin;
    } catch {}
    // (a scheme and a host are case-insensitive: HTTPS://Course.Example is that origin)
    target = parsed && parsed !== "null" && parsed === wanted.replace(/\/$/, "").toLowerCase() ? parsed : null;
    if (target === null) console.error(`agent-loop-playground: origin=${wanted} is not an origin (e.g. https://course.example); nothing will be posted`);
  }
  // Where the browser tells us the parent's origin, a mismatch posts nothing
  // (instead of a console error for every message).
  const parentOrigin = location.ancestorOrigins && location.ancestorOrigins[0];
  const reachable = target === "*" || (target !== null && (!parentOrigin || parentOrigin === target));
  if (target !== null && !reachable && window.parent !== window) {
    console.error(`agent-loop-playground: origin=${wanted}, but this page is embedded by ${parentOrigin}; nothing will be posted (set origin=${parentOrigin})`);
  }
  /**
   * @param {string} type
   * @param {Record<string, unknown>} extra
   */
  const post = (type, extra) => {
    if (window.parent !== window && reachable && target !== null) window.parent.postMessage({ source: SOURCE, type, ...extra }, target);
  };
  const height = () => Math.ceil(document.documentElement.getBoundingClientRect().height);
  let last = 0;
  new ResizeObserver(() => {
    const h = height();
    if (h !== last) {
      last = h;
      post("resize", { height: h });
    }
  }).observe(document.documentElement);
  el.addEventListener("playground-ready", (e) => post("ready", { state: e.detail, height: height() }));
  el.addEventListener("playground-step", (e) => post("step", { state: e.detail }));
  // A course site can keep the score: every answer goes to the parent too.
  el.addEventListener("playground-answer", (e) => post("answer", { answer: e.detail }));
  const commands = new Set(["run", "debug", "step", "stepInto", "stepOut", "continue", "back", "reset"]);
  window.addEventListener("message", (e) => {
    const m = e.data;
    // Only well-formed commands from the parent are obeyed; anything else is ignored.
    if (e.source !== window.parent || !m || typeof m !== "object" || m.source !== SOURCE) return;
    if (target !== "*" && e.origin !== target) return;
    try {
      if (m.type === "command" && commands.has(m.name)) el.command(m.name);
      else if (m.type === "load" && typeof m.scenario === "string") Promise.resolve(el.load(m.scenario)).catch(() => {});
      // The parent's scheme (iframe-resize.js sends it); theme= in the URL wins.
      else if (m.type === "theme" && !asked("theme")) showTheme(m.theme);
      else if (m.type === "toggleBreakpoint" && typeof m.function === "string") {
        const on = el.toggleBreakpoint(m.function, m.line);
        post("breakpoint", { function: m.function, line: m.line, on, state: el.state() });
      }
    } catch (error) {
      post("error", { message: String(error instanceof Error && error.message ? error.message : error) });
    }
  });
}
