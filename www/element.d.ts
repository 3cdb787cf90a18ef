// Types for the <agent-loop-playground> element (docs/element-api.md is the
// reference): `import "agent-loop-playground"` defines the element; these
// declarations describe its attributes, properties, methods and events.

export type Command = "run" | "debug" | "step" | "stepInto" | "stepOut" | "continue" | "back" | "reset";

export interface Breakpoint { function: string; line: number }

export interface Question { key: string; text: string; choices: string[]; label: string; step: number }

/** `el.state()`: where the learner is and how the run ends. */
export interface PlaygroundState {
  scenario: string;
  function: string;
  program: string;
  step: number;
  steps: number;
  started: boolean;
  line: number;
  label: string;
  stage: string;
  depth: number;
  currentFunction: string;
  status: string;
  finalStatus: string | null;
  recordLength: number;
  breakpoints: Breakpoint[];
  lang: string;
  listing: "python" | "rust";
  predict: boolean;
  question: Question | null;
  score: { right: number; answered: number };
  whatIf: boolean;
  compare: { function: string; partsAt: number | null; lessonPartsAt: number | null } | null;
  [more: string]: unknown;
}

/** A scripted model: the Messages API request in, a response out (synchronously). */
export type ModelCallback = (request: Record<string, unknown>) => Record<string, unknown>;
/** A scripted process: `python main.py` in, `{returncode, stdout, stderr}` | `{timeout: true}` | `{os_error}` out. */
export type ProcessCallback = (command: string[], options: { timeout_s: number }) => Record<string, unknown>;

export interface WhatIfEdit {
  model?: unknown[];
  process?: unknown;
  tool_results?: Record<string, unknown[]>;
  call?: Record<string, unknown>;
  function?: string;
}

// ---- attributes: written from www/element/attributes.js by `node tests/js/check.mjs --write`; edit the table, not this
/** A language the element speaks (www/element/languages.js). */
export type Language = "zh" | "en";

/** The element's attributes, as written in HTML (docs/element-api.md#attributes). */
export interface AgentLoopPlaygroundAttributes {
  /** An entry function (run_loop, agent_loop, …): the picker offers its scenarios. Default: all functions. */
  "function"?: string;
  /** A program (lesson_one, lesson_two): the picker offers its scenarios. Default: all programs. */
  "program"?: string;
  /** Another loop of the scenario's lesson, run beside it on the same replies. Default: none. */
  "compare"?: string;
  /** The scenario shown. Default: report, error or request, else the function's first. */
  "scenario"?: string;
  /** The language of the words, captions and listing. Default: the page's <html lang> when the element speaks it, else zh. */
  "lang"?: Language | `${Language}-${string}`;
  /** Labels, line numbers or function:line, comma-separated; set again, the list replaces every breakpoint. Default: none. */
  "breakpoints"?: string;
  /** The command buttons shown, e.g. "debug,step,continue,back,reset". Default: all eight. */
  "controls"?: string;
  /** The tallest the code and figure panels grow: a number (pixels) or px, rem, em, vh. Default: the window's height less 290px, from 300px to 560px (340px when the element is narrow); 380px with compact. */
  "height"?: string;
  /** Present: a smaller layout ("off" counts as absent). Default: absent. */
  "compact"?: "" | "off";
  /** "off": the setup panel shows the setup and the entry but no what-if editors. Default: shown. */
  "editors"?: "off";
  /** "off": a client-side navigation back opens afresh, not where the learner was. Default: kept. */
  "keep-place"?: "off";
  /** The code shown: the lesson's Python, or the Rust that is recorded. Default: python. */
  "listing"?: "python" | "rust";
  /** Light or dark. Default: auto: the page's color-scheme, else the system's. */
  "theme"?: "auto" | "light" | "dark";
  /** Scenario files on this site, space-separated: fetched and added to the picker. Default: none. */
  "src"?: string;
  /** How long each file of src and listing-src may take: seconds, "2.5s" or "500ms", up to 600 s. Default: 10 s. */
  "fetch-timeout"?: string;
  /** A program pack on this site (agent-loop-cli record): an author's Python recorded by CPython, its scenarios the ones shown (docs/program-format.md). Default: none: the built-in lessons. */
  "program-src"?: string;
  /** An author's own Python listing on this site, for any language (docs/listing-format.md). Default: the built-in listing. */
  "listing-src"?: string;
  /** An author's own Python listing on this site, for zh. Default: listing-src. */
  "listing-src-zh"?: string;
  /** An author's own Python listing on this site, for en. Default: listing-src. */
  "listing-src-en"?: string;
  /** Panel titles become headings of this level. Default: none: panel titles are not headings. */
  "heading-level"?: "1" | "2" | "3" | "4" | "5" | "6";
  /** Present: a question before each line that carries one. Default: absent. */
  "predict"?: "";
  /** The step to open at: a step number or a label; set again, the playground goes there. Default: not started. */
  "step"?: string;
  /** How long one recording may run: seconds, "0.5s" or "500ms". Default: 2 s. */
  "time-budget"?: string;
  /** How large one recording may grow: megabytes, "64MB". Default: 256 MB. */
  "memory-budget"?: string;
}
// ---- end of attributes

/** One row of the element's attribute table (www/element/attributes.js). */
export interface AttributeRow {
  name: keyof AgentLoopPlaygroundAttributes;
  /** its text, as a TypeScript type */
  type: string;
  default: string;
  about: string;
  /** read again on every change */
  live?: boolean;
  /** the option the playground is built with */
  option?: string;
  /** a flag: present ("on": present and not "off") or absent */
  flag?: "present" | "on";
  needsPack?: boolean;
  /** the stand-alone page's URL sets it (index.html?name=value; a flag: name=1) */
  url?: boolean;
}
/** Every attribute of the element, declared once (docs/element-api.md#attributes). */
export const ATTRIBUTES: readonly AttributeRow[];

/** The element; its attributes are AgentLoopPlaygroundAttributes. */
export class AgentLoopPlayground extends HTMLElement {
  /** `true` once the playground is built (after `playground-ready`). */
  readonly ready: boolean;
  lang: string;
  predict: boolean;
  model: ModelCallback | null;
  process: ProcessCallback | null;
  state(): PlaygroundState | null;
  command(name: Command): PlaygroundState;
  toggleBreakpoint(fn: string, line: number | string): boolean;
  /** A scenario of a program whose pack (data/<pack>.json) has not arrived
   *  yet is shown once it has: a Promise then, rejected if it cannot be fetched. */
  load(scenarioId: string): void | Promise<void>;
  /** The scenario's id; a Promise of it for a scenario of a program whose
   *  pack has not arrived yet (its checks read the program's code). */
  addScenario(fixture: string | Record<string, unknown>): string | Promise<string>;
  currentStep(): Record<string, unknown> | null;
  outcome(): { result: unknown; error: unknown; output: string[] } | null;
  currentEdit(): WhatIfEdit | null;
  setListing(name: "python" | "rust"): void;
  answer(choice: number): Record<string, unknown>;
  tryAgain(): PlaygroundState;
  whatIf(edit: WhatIfEdit | null): PlaygroundState;
}

declare global {
  interface HTMLElementTagNameMap { "agent-loop-playground": AgentLoopPlayground }
  interface HTMLElementEventMap {
    "playground-ready": CustomEvent<PlaygroundState>;
    "playground-step": CustomEvent<PlaygroundState>;
    "playground-answer": CustomEvent<Record<string, unknown>>;
  }
}
