// @ts-check
// What one value may hold when it crosses into the wasm module (a
// callback's reply or outcome, a what-if edit, an added scenario): counted
// before it is converted, so that a huge value is refused in milliseconds
// instead of freezing the tab while it is copied. docs/element-api.md#limits.
// And the callbacks themselves: synchronous, their thrown values clipped.
// (Every built-in here is the one the page had when the element loaded:
// builtins.js.)
import {
  Promise, Set, String, TypeError, apply, assign, getPrototypeOf, isArray, isView, parse, pop, push, resolved, setAdd, setHas,
  stringify, textSlice, then,
} from "./builtins.js";

/** A model or process callback as the playground calls it.
 *  @typedef {(...args: unknown[]) => unknown} Callback */
/** An author's callback wrapped for the playground; `original` is theirs.
 *  @template {Function} F
 *  @typedef {Callback & {original: F}} Wrapped */

export const CROSSING = { values: 100_000, chars: 8_000_000, thrown: 20_000 };

// (the count is written only when it is said: formatting it for every
// callback reply cost a 10,000-call recording half a second)
const LIMIT_NOUN = { values: "values", chars: "characters" };

/**
 * The error for a value over one of the limits.
 * @param {string} what
 * @param {"values" | "chars"} limit
 */
export function tooBig(what, limit) {
  const counted = `${CROSSING[limit].toLocaleString("en")} ${LIMIT_NOUN[limit]}`;
  return new TypeError(`${what} is too big for the playground: more than ${counted} (docs/element-api.md#limits)`);
}

/**
 * A first look, before JSON.stringify reads it: a typed array of ten
 * million or an object of a million keys is refused here, without the
 * list of its keys JSON.stringify would build first. (What is serialised
 * is counted again: a getter may answer more the second time.)
 * @param {unknown} value
 * @param {string} what
 */
function glance(value, what) {
  let values = 0;
  let chars = 0;
  /** @type {unknown[]} */
  const stack = [value];
  const seen = new Set();
  while (stack.length) {
    const v = pop(stack);
    if (++values > CROSSING.values) throw tooBig(what, "values");
    if (typeof v === "string") {
      if ((chars += v.length) > CROSSING.chars) throw tooBig(what, "chars");
      continue;
    }
    if (v === null || typeof v !== "object" || setHas(seen, v)) continue;
    setAdd(seen, v);
    if (isView(v)) {
      const view = /** @type {ArrayBufferView & {length?: number}} */ (v);
      if ((values += view.length ?? view.byteLength) > CROSSING.values) throw tooBig(what, "values");
      continue;
    }
    if (isArray(v)) {
      if (values + v.length > CROSSING.values) throw tooBig(what, "values");
      for (let i = 0; i < v.length; i++) push(stack, v[i]);
      continue;
    }
    const object = /** @type {Record<string, unknown>} */ (v);
    let keys = 0;
    for (const k in object) {
      if (values + ++keys > CROSSING.values) throw tooBig(what, "values");
      if ((chars += k.length) > CROSSING.chars) throw tooBig(what, "chars");
      push(stack, object[k]);
    }
  }
}

/**
 * `value` as it crosses: serialised once by JSON.stringify, every value
 * and character it reads counted as it reads it (after each `toJSON`,
 * through each getter once), and read back as plain data, so the module
 * converts exactly what was counted. Throws (a TypeError naming the
 * limit) when it holds more values or characters than one crossing takes.
 * A value JSON cannot write (a cycle, a BigInt, a throwing `toJSON`) is
 * handed over as it is: the module says why it cannot use it.
 * @param {unknown} value
 * @param {string} what
 * @returns {unknown}
 */
export function bounded(value, what) {
  let values = 0;
  let chars = 0;
  /** @type {TypeError | null} */
  let over = null;
  /** @this {unknown} @param {string} key @param {unknown} v */
  const count = function (key, v) {
    chars += key.length;
    if (typeof v === "string") chars += v.length;
    if (++values > CROSSING.values) throw (over = tooBig(what, "values"));
    if (chars > CROSSING.chars) throw (over = tooBig(what, "chars"));
    return v;
  };
  glance(value, what);
  let text;
  try {
    text = stringify(value, count);
  } catch (error) {
    if (error === over) throw error;
    return value;
  }
  return text === undefined ? value : parse(text);
}

/**
 * A thrown value whose message is longer than CROSSING.thrown, cut (the
 * rest said in a count); anything else as it was.
 * @param {unknown} error
 */
export function clipped(error) {
  const cut = (/** @type {string} */ s) => `${textSlice(s, 0, CROSSING.thrown)}… (${(s.length - CROSSING.thrown).toLocaleString("en")} more characters)`;
  try {
    if (typeof error === "string") return error.length > CROSSING.thrown ? cut(error) : error;
    const thrown = /** @type {{message?: unknown, name?: unknown} | null | undefined} */ (error);
    const message = thrown?.message;
    if (typeof message === "string" && message.length > CROSSING.thrown) {
      const name = typeof thrown?.name === "string" ? textSlice(thrown.name, 0, 200) : "Error";
      return { name, message: cut(message) };
    }
  } catch {}
  return error;
}

/**
 * The message of a thrown value, whatever was thrown (a getter that
 * throws, a value String cannot write: "an error").
 * @param {unknown} error
 */
export function messageOf(error) {
  try {
    const message = error && typeof error === "object" && "message" in error ? error.message : "";
    return String(message || error);
  } catch {
    return "an error";
  }
}

/**
 * Strings only cross into the wasm module as strings.
 * @param {unknown} value
 * @param {string} what
 */
export function text(value, what) {
  if (typeof value !== "string") throw new TypeError(`${what} must be a string, got ${value === null ? "null" : typeof value}`);
  return value;
}

/**
 * @param {string} message
 * @returns {never}
 */
function refuse(message) {
  console.error(`agent-loop-playground: ${message}`);
  throw new TypeError(message);
}

/**
 * Whether a callback's value is a promise or one's stand-in: a Promise, or
 * an object with a `then` of its own kind (not the one a page may have
 * given every object: then a reply is still a reply).
 * @param {unknown} value
 * @returns {value is PromiseLike<unknown>}
 */
function promised(value) {
  if (value instanceof Promise) return true;
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  const own = /** @type {{then?: unknown}} */ (value).then;
  return typeof own === "function" && own !== /** @type {{then?: unknown}} */ (Object.prototype).then;
}

/**
 * Callbacks must be synchronous: the loop is recorded in one go. An async
 * function is refused when it is assigned; a function that returns a
 * Promise anyway is treated as one that throws (model_error, or a "cannot
 * start" tool result), and its Promise is never left unhandled.
 * @template {Function} F
 * @param {F | null | undefined} fn  (any value from a page's script: checked)
 * @param {string} what  "model" or "process"
 * @returns {Wrapped<F> | null}
 */
export function synchronous(fn, what) {
  if (fn === null || fn === undefined) return null;
  if (typeof fn !== "function") refuse(`el.${what} must be a function or null`);
  const author = fn;
  const kind = getPrototypeOf(author)?.constructor?.name;
  if (kind === "AsyncFunction" || kind === "AsyncGeneratorFunction") {
    refuse(`el.${what} must be synchronous; an async function returns a Promise, and the playground records the whole loop at once`);
  }
  /** @type {Callback} */
  const wrapped = /** @this {unknown} */ function (...args) {
    let result;
    try {
      result = apply(author, this, args);
    } catch (error) {
      throw clipped(error);
    }
    if (promised(result)) {
      then(resolved(result), undefined, () => {});
      throw new TypeError(`the ${what} callback returned a Promise; callbacks must be synchronous`);
    }
    return bounded(result, `what the ${what} callback returned`);
  };
  return assign(wrapped, { original: author });
}
