// @ts-check
// What one value may hold when it crosses into the wasm module (a
// callback's reply or outcome, a what-if edit, an added scenario): counted
// before it is converted, so that a huge value is refused in milliseconds
// instead of freezing the tab while it is copied. docs/element-api.md#limits.
// And the callbacks themselves: synchronous, their thrown values clipped.

/** A model or process callback as the playground calls it.
 *  @typedef {(...args: unknown[]) => unknown} Callback */
/** An author's callback wrapped for the playground; `original` is theirs.
 *  @template {Function} F
 *  @typedef {Callback & {original: F}} Wrapped */

export const CROSSING = { values: 100_000, chars: 8_000_000, thrown: 20_000 };
// (as the module loaded: a page that replaces them later changes nothing here)
const { stringify, parse } = JSON;
const { isArray } = Array;
const { isView } = ArrayBuffer;
const Seen = Set;

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
  const seen = new Seen();
  while (stack.length) {
    const v = stack.pop();
    if (++values > CROSSING.values) throw tooBig(what, "values");
    if (typeof v === "string") {
      if ((chars += v.length) > CROSSING.chars) throw tooBig(what, "chars");
      continue;
    }
    if (v === null || typeof v !== "object" || seen.has(v)) continue;
    seen.add(v);
    if (isView(v)) {
      const view = /** @type {ArrayBufferView & {length?: number}} */ (v);
      if ((values += view.length ?? view.byteLength) > CROSSING.values) throw tooBig(what, "values");
      continue;
    }
    if (isArray(v)) {
      if (values + v.length > CROSSING.values) throw tooBig(what, "values");
      for (let i = 0; i < v.length; i++) stack.push(v[i]);
      continue;
    }
    const object = /** @type {Record<string, unknown>} */ (v);
    let keys = 0;
    for (const k in object) {
      if (values + ++keys > CROSSING.values) throw tooBig(what, "values");
      if ((chars += k.length) > CROSSING.chars) throw tooBig(what, "chars");
      stack.push(object[k]);
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
  const cut = (/** @type {string} */ s) => `${s.slice(0, CROSSING.thrown)}… (${(s.length - CROSSING.thrown).toLocaleString("en")} more characters)`;
  try {
    if (typeof error === "string") return error.length > CROSSING.thrown ? cut(error) : error;
    const thrown = /** @type {{message?: unknown, name?: unknown} | null | undefined} */ (error);
    const message = thrown?.message;
    if (typeof message === "string" && message.length > CROSSING.thrown) {
      const name = typeof thrown?.name === "string" ? thrown.name.slice(0, 200) : "Error";
      return { name, message: cut(message) };
    }
  } catch {}
  return error;
}

/**
 * The message of a thrown value, whatever was thrown.
 * @param {unknown} error
 */
export function messageOf(error) {
  const message = error && typeof error === "object" && "message" in error ? error.message : "";
  return String(message || error);
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
  const kind = Object.getPrototypeOf(author)?.constructor?.name;
  if (kind === "AsyncFunction" || kind === "AsyncGeneratorFunction") {
    refuse(`el.${what} must be synchronous; an async function returns a Promise, and the playground records the whole loop at once`);
  }
  /** @type {Callback} */
  const wrapped = /** @this {unknown} */ function (...args) {
    let result;
    try {
      result = author.apply(this, args);
    } catch (error) {
      throw clipped(error);
    }
    if (result !== null && (typeof result === "object" || typeof result === "function") && typeof result.then === "function") {
      Promise.resolve(result).catch(() => {});
      throw new TypeError(`the ${what} callback returned a Promise; callbacks must be synchronous`);
    }
    return bounded(result, `what the ${what} callback returned`);
  };
  return Object.assign(wrapped, { original: author });
}
