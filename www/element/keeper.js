// @ts-check
// The playground kept alive. A JS exception that unwinds through wasm (an
// error in a script of the host page, mid-update) leaves the playground
// borrowed for good: busy while none of its calls, callbacks or events
// runs. So every call into it, every callback it makes and every DOM event
// inside it is counted here; a playground found busy with none of them
// running is dead, and a new one is built where the learner was
// (`lastPlace`), with a notice saying what failed.
import { RuntimeError, apply, assign, parse, listen, setTimeout, textSlice } from "./builtins.js";
import { messageOf } from "./crossing.js";
import { listenForShows } from "./showing.js";

/** @typedef {import("./base.js").PlaygroundElement} Host */
/** @typedef {import("./agent-loop-playground.js").Playground} Playground */
/** @typedef {import("./agent-loop-playground.js").Method} Method */
/** @typedef {import("./agent-loop-playground.js").Doubles} Doubles */
/** @typedef {import("./crossing.js").Callback} Callback */
/** @template {Function} F @typedef {import("./crossing.js").Wrapped<F>} Wrapped */

/**
 * A call into the playground: a throw that leaves it dead starts it again
 * (and the caller still hears the error); a trap of the module itself is
 * said in the element.
 * @template {Method} K
 * @param {Host} el
 * @param {K} name
 * @param {Parameters<Playground[K]>} args
 * @returns {ReturnType<Playground[K]>}
 */
export function call(el, name, args) {
  const pg = el._need();
  const method = /** @type {(...args: Parameters<Playground[K]>) => ReturnType<Playground[K]>} */ (pg[name]);
  let failed = null;
  el._calls++;
  try {
    return apply(method, pg, args);
  } catch (error) {
    failed = error;
    throw error;
  } finally {
    el._calls--;
    if (failed && RuntimeError && failed instanceof RuntimeError) {
      el._pg = null;
      el._fail(failed.message, true);
    } else if (failed && el._pg === pg && el._dead()) {
      revive(el, failed);
    }
  }
}

/**
 * Start a new playground where the dead one was, with a notice saying what
 * failed: after the task that killed it (the page may still be broken
 * while it runs), or at the next call, whichever comes first.
 * @param {Host} el
 * @param {unknown} error
 */
export function revive(el, error) {
  const old = el._pg;
  let place = null;
  try {
    place = old && parse(old.lastPlace());
  } catch {}
  el._pg = null;
  try {
    old?.free();
  } catch {}
  const what = error ? messageOf(error) : "";
  el._lost = { place, restarted: textSlice(what || "an error in a script of the page", 0, 500) };
  setTimeout(() => el._lost && el.isConnected && el._rebuild(), 0);
}

/**
 * A callback the playground calls, counted as a call in progress.
 * @param {Host} el
 * @param {Callback} fn
 * @returns {Callback}
 */
function countedCall(el, fn) {
  return (...args) => {
    el._calls++;
    try {
      return apply(fn, undefined, args);
    } finally {
      el._calls--;
    }
  };
}

/**
 * An author's model or process, counted the same way.
 * @template {Function} F
 * @param {Host} el
 * @param {Wrapped<F> | null} fn
 * @returns {Wrapped<F> | null}
 */
export function countedFn(el, fn) {
  return fn && assign(countedCall(el, fn), { original: fn.original });
}

/**
 * The fixture doubles of a scenario, counted the same way.
 * @param {Host} el
 * @param {Doubles} doubles
 * @returns {Doubles}
 */
export function counted(el, doubles) {
  if (!doubles || typeof doubles !== "object") return doubles;
  return { ...doubles, model: countedCall(el, doubles.model), process: countedCall(el, doubles.process) };
}

/**
 * Listens inside the shadow root: the element's own listeners (a language
 * button, a pack the picker needs), and DOM events counted while the
 * playground's listeners run: one before them (capture, on the shadow
 * root), one after them (on the container, added after the playground's
 * own). An event that finds the playground dead starts it again instead.
 * @param {Host} el
 */
export function watchEvents(el) {
  const box = el._container();
  const root = /** @type {ShadowRoot} */ (el.shadowRoot);
  if (!el._watching) listenForShows(el, root);
  const types = ["click", "change", "input", "keydown"];
  for (let i = 0; i < types.length; i++) {
    const type = types[i];
    if (!el._watching) {
      listen(root, type, (/** @type {Event} */ event) => {
        if (el._pg && el._dead()) {
          event.stopImmediatePropagation();
          revive(el, "");
          el._rebuild();
          return;
        }
        el._events++;
      }, true);
    }
    listen(box, type, () => { el._events = el._events > 0 ? el._events - 1 : 0; });
  }
  el._watching = true;
}
