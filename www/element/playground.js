// @ts-check
// The element as a page sees it: its attributes (the table in
// attributes.js; those read again on every change are applied here) and
// its API (docs/element-api.md#methods-and-properties). Its state and its
// life in the page are base.js's.
import { LIVE } from "./attributes.js";
import { PlaygroundElement } from "./base.js";
import {
  TypeError, filter, includes, indexOf, isArray, push, queueMicrotask, resolved, setTimeout, slice, splice, stringify, then,
} from "./builtins.js";
import { bounded, CROSSING, messageOf, synchronous, text, tooBig } from "./crossing.js";
import { countedFn } from "./keeper.js";
import { languagePack } from "./languages.js";
import { isPackNeeded, withPack } from "./packs.js";
import { isReading, readBack } from "./elsewhere.js";
import { load, setLang } from "./showing.js";
import { loadSrc } from "./sources.js";

/** The attributes applied when the script that set them is done, in this order. */
const DEFERRED = ["predict", "scenario", "lang", "listing", "breakpoints", "step"];

export class AgentLoopPlayground extends PlaygroundElement {
  static get observedAttributes() {
    return LIVE;
  }

  /**
   * @param {string} name
   * @param {string | null} oldValue
   * @param {string | null} value
   */
  attributeChangedCallback(name, oldValue, value) {
    try {
      this._attributeChanged(name, oldValue, value);
    } catch (error) {
      // (a page that broke what this reads: said, never thrown at the page)
      console.warn(`agent-loop-playground: ${name}=${value}: ${messageOf(error)}`);
    }
  }

  /**
   * @param {string} name
   * @param {string | null} oldValue
   * @param {string | null} value
   */
  _attributeChanged(name, oldValue, value) {
    if (name === "height") this._applyHeight(value);
    if (name === "theme") this._followScheme();
    if (name === "src" && this._pg && value !== null && oldValue !== value) loadSrc(this, value);
    if (!this._pg || !includes(DEFERRED, name)) return;
    // (the same step or list again is a link clicked again: it goes there again)
    if (oldValue === value && name !== "step" && name !== "breakpoints") return;
    // (no breakpoints attribute: no breakpoints; no step: what it said goes; the others keep their last value)
    if (name !== "predict" && name !== "breakpoints" && name !== "step" && value === null) return;
    // Applied once the script that set it is done (a framework that sets
    // them on every render, a burst of a thousand: once, the last value),
    // or, set from inside one of the playground's own callbacks (a model
    // that sets el.lang), once the update is over.
    if (!this._deferred.length) queueMicrotask(() => this._applyDeferred());
    if (!includes(this._deferred, name)) push(this._deferred, name);
  }

  /**
   * An attribute's value now, given to the playground (a bad one is said in
   * the console). A scenario shown once its pack has come: that Promise.
   * @param {string} name
   * @returns {Promise<unknown> | undefined}
   */
  _applyAttribute(name) {
    const value = this.getAttribute(name);
    try {
      if (name === "predict") this._call("setPredict", value !== null);
      else if (name === "breakpoints" || name === "step") this._call("again", name, value || "");
      else if (value === null) return;
      // (a pack that does not come is said by the element itself)
      else if (name === "scenario") {
        const shown = this.load(value);
        return then(resolved(shown), undefined, (/** @type {{pack?: string}} */ error) => error.pack || console.warn(`agent-loop-playground: scenario=${value}: ${messageOf(error)}`));
      } else if (name === "lang") setLang(this, value);
      else if (name === "listing") this._call("setListing", value);
    } catch (error) {
      console.warn(`agent-loop-playground: ${name}=${value}: ${messageOf(error)}`);
    }
  }

  _applyDeferred() {
    if (!this._pg) return void splice(this._deferred, 0, this._deferred.length);
    // Still busy (a callback that runs long, or a chain of them): after this task.
    if (this._pg.isBusy() && !this._dead()) return void setTimeout(() => this._applyDeferred(), 0);
    const given = splice(this._deferred, 0, this._deferred.length);
    // (in DEFERRED's order, whatever the script's: a step is one of the scenario shown)
    this._applyNames(filter(DEFERRED, (/** @type {string} */ name) => includes(given, name)));
  }

  /**
   * The changed attributes `names`, one after the other; those after a
   * scenario whose pack is on its way once it is shown.
   * @param {string[]} names
   */
  _applyNames(names) {
    if (!this._pg) return;
    const now = this._pg.state();
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      const value = this.getAttribute(name);
      const same = name === "predict" ? now?.predict === (value !== null) : name === "lang" ? now?.lang === value : false;
      const waiting = same ? undefined : this._applyAttribute(name);
      if (waiting && this._pg.state()?.scenario !== value) {
        const rest = slice(names, i + 1);
        return void then(waiting, () => this._applyNames(rest));
      }
    }
  }

  // ---- The API (docs/element-api.md#methods-and-properties).

  /**
   * el.focus() puts the keyboard in the playground (its keys work from there).
   * @param {FocusOptions} [options]
   */
  focus(options) {
    const root = /** @type {HTMLElement | null | undefined} */ (this.shadowRoot?.querySelector(".alp-root"));
    if (root) root.focus(options);
    else super.focus(options);
  }

  get ready() {
    return this._pg !== null;
  }
  /** @param {unknown} name */
  command(name) {
    return this._call("command", text(name, "command name"));
  }
  /**
   * @param {unknown} fn
   * @param {number | string} line
   */
  toggleBreakpoint(fn, line) {
    if (typeof line !== "number" && typeof line !== "string") throw new TypeError("line must be a line number or a label");
    return this._call("toggleBreakpoint", text(fn, "function"), line);
  }
  /**
   * A scenario of a program whose pack has not arrived yet is shown once it
   * has, one whose long run is kept as bytes once it is read back (a slice
   * per task): then load returns a Promise (rejected if the pack cannot be
   * fetched, and the element says so; resolved without showing it if
   * another scenario was shown meanwhile).
   * @param {unknown} scenarioId
   * @returns {void | Promise<void>}
   */
  load(scenarioId) {
    return load(this, text(scenarioId, "scenario id"));
  }
  /** @param {unknown} name */
  setListing(name) {
    return this._call("setListing", text(name, "listing"));
  }
  /**
   * The scenario's id; a Promise of it for a scenario of a program whose
   * pack is not here yet (its checks read the program's texts).
   * @param {unknown} fixture  JSON text or a plain object
   * @returns {string | Promise<string>}
   */
  addScenario(fixture) {
    if (typeof fixture === "string" && fixture.length > CROSSING.chars) {
      throw tooBig("the scenario", "chars");
    }
    const given = typeof fixture === "string" ? fixture : stringify(bounded(fixture, "the scenario"));
    let id;
    try {
      id = this._call("addScenario", given);
    } catch (error) {
      // A scenario of a program whose pack is not here yet (its checks
      // read its texts): added once it is, a Promise of its id meanwhile.
      if (isPackNeeded(error)) return then(withPack(this, error.pack), () => this.addScenario(given));
      // (the same text as a long src= file whose run is kept as bytes: read back first)
      if (isReading(error)) return then(readBack(), () => this.addScenario(given));
      throw error;
    } finally {
      this._flushSoon();
    }
    push(this._added, given); // (kept for a restart)
    return id;
  }
  get predict() {
    return this.hasAttribute("predict");
  }
  set predict(on) {
    this.toggleAttribute("predict", !!on);
  }
  /** @param {unknown} choice */
  answer(choice) {
    if (!Number.isInteger(choice) || /** @type {number} */ (choice) < 0) throw new TypeError("choice must be the index of a choice (0 is the first)");
    return this._call("answer", /** @type {number} */ (choice));
  }
  tryAgain() {
    return this._call("tryAgain");
  }
  /** @param {unknown} edit  `{model, process, tool_results, call, function}` or null */
  whatIf(edit) {
    if (edit !== null && edit !== undefined && (typeof edit !== "object" || isArray(edit))) {
      throw new TypeError("whatIf takes {model: [...], process: ...} or null");
    }
    return this._call("whatIf", bounded(edit ?? null, "the edit"));
  }
  // The edit the version on screen was made with, or null (a link to it).
  currentEdit() {
    return this._call("currentEdit");
  }
  currentStep() {
    return this._call("currentStep");
  }
  outcome() {
    return this._call("outcome");
  }
  get model() {
    return this._model ? this._model.original : null;
  }
  /** @param {import("../element.js").ModelCallback | null} fn */
  set model(fn) {
    this._model = countedFn(this, synchronous(fn, "model"));
    this._setDouble("setModel", "_model");
  }
  get process() {
    return this._process ? this._process.original : null;
  }
  /** @param {import("../element.js").ProcessCallback | null} fn */
  set process(fn) {
    this._process = countedFn(this, synchronous(fn, "process"));
    this._setDouble("setProcess", "_process");
  }
  /**
   * Set from inside a callback: given to the playground once the update is over.
   * @param {"setModel" | "setProcess"} method
   * @param {"_model" | "_process"} field
   */
  _setDouble(method, field) {
    if (!this._pg) return;
    if (this._pg.isBusy() && !this._dead()) {
      // Applying a setting re-records, which calls the callbacks again: a
      // setting made while one is being applied is kept (the getter
      // answers it) but not applied again, or the two would chase each
      // other in microtasks for ever.
      if (this._applyingDouble || includes(this._pendingDoubles, field)) return;
      push(this._pendingDoubles, field);
      queueMicrotask(() => this._applyDouble(method, field));
      return;
    }
    this._call(method, this[field]);
  }
  /**
   * A setting made from inside a callback, once the update it was made in is over.
   * @param {"setModel" | "setProcess"} method
   * @param {"_model" | "_process"} field
   */
  _applyDouble(method, field) {
    const at = indexOf(this._pendingDoubles, field);
    if (at >= 0) splice(this._pendingDoubles, at, 1);
    if (!this._pg) return;
    if (this._pg.isBusy() && !this._dead()) return this._setDouble(method, field);
    this._applyingDouble = true;
    try {
      this._call(method, this[field]);
    } finally {
      this._applyingDouble = false;
    }
  }
  get lang() {
    return this.getAttribute("lang") || "";
  }
  set lang(value) {
    // (the same value again while another language is shown, its table
    // having failed to come: tried again; the attribute does not change)
    const code = languagePack(value);
    const again = code && this.getAttribute("lang") === value && this._pg && !this._pg.isBusy() && this.state()?.lang !== code;
    if (again) setLang(this, value);
    else this.setAttribute("lang", value);
  }
}

// The shipped types (element.d.ts) describe this class: a member they name
// that it lacks, or types differently, fails the type check.
/** @satisfies {typeof import("../element.js").AgentLoopPlayground} */ (AgentLoopPlayground);
