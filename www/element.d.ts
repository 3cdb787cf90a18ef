// Types for the <agent-loop-playground> element (docs/element-api.md is the
// reference): `import "agent-loop-playground"` defines the element; these
// declarations describe its attributes' properties, methods and events.

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
