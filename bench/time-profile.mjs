// Where the time goes, from a Chrome trace (devtools.timeline): the profile
// bench.mjs prints beside the time figures that miss their budgets.
//
//   steps(events): per click on Step into, the median of each part: the
//     click's handler (script, the style and layout it forces, HTML parsing),
//     the layout the bench itself forces after it, the frame that draws it
//     (style, layout, paint), and other tasks before the next click (timers).
//   cold(events): one cold load between the page's own marks: compiling the
//     module, then constructing the playground, and how much of that was V8
//     compiling each function on its first call (wasm lazy compilation).
//
// Traced runs are slower than untraced ones: the parts' shares are what to
// read, and the untraced figures stay the ones bench.mjs reports.

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};
const ms = (us) => Math.round(us / 10) / 100;

/** The renderer's main thread: the CrRendererMain with the most events. */
function mainThread(events) {
  const names = new Map();
  for (const e of events) if (e.name === "thread_name" && e.args?.name === "CrRendererMain") names.set(`${e.pid}:${e.tid}`, 0);
  for (const e of events) {
    const k = `${e.pid}:${e.tid}`;
    if (names.has(k) && e.ph === "X") names.set(k, names.get(k) + 1);
  }
  const [best] = [...names].sort((a, b) => b[1] - a[1])[0] || [];
  return events
    .filter((e) => `${e.pid}:${e.tid}` === best && e.ph === "X" && typeof e.dur === "number")
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
}

const within = (list, from, to) => list.filter((e) => e.ts >= from && e.ts < to);
const total = (list, ...names) => list.filter((e) => names.includes(e.name)).reduce((a, e) => a + e.dur, 0);

/** Per click, the median of each part (ms), and how many clicks were read. */
export function steps(events) {
  const main = mainThread(events);
  const clicks = main.filter((e) => e.name === "EventDispatch" && e.args?.data?.type === "click");
  const parts = { handler: [], script: [], forced_style: [], forced_layout: [], html_parsing: [], after_click_layout: [], frame: [], frame_style: [], frame_layout: [], frame_paint: [], timers: [] };
  for (let i = 0; i + 1 < clicks.length; i++) {
    const c = clicks[i];
    const inClick = within(main, c.ts, c.ts + c.dur);
    const style = total(inClick, "UpdateLayoutTree");
    const layout = total(inClick, "Layout");
    const parse = total(inClick, "ParseHTML");
    parts.handler.push(c.dur);
    parts.forced_style.push(style);
    parts.forced_layout.push(layout);
    parts.html_parsing.push(parse);
    parts.script.push(Math.max(0, c.dur - style - layout - parse));
    const rest = within(main, c.ts + c.dur, clicks[i + 1].ts);
    const frames = rest.filter((e) => e.name === "WebFrameWidgetImpl::UpdateLifecycle");
    const inFrames = frames.flatMap((f) => within(rest, f.ts, f.ts + f.dur));
    const outside = rest.filter((e) => !frames.some((f) => e.ts >= f.ts && e.ts < f.ts + f.dur));
    parts.after_click_layout.push(total(outside, "UpdateLayoutTree", "Layout"));
    parts.frame.push(frames.reduce((a, f) => a + f.dur, 0));
    parts.frame_style.push(total(inFrames, "UpdateLayoutTree"));
    parts.frame_layout.push(total(inFrames, "Layout"));
    parts.frame_paint.push(total(inFrames, "PrePaint", "LocalFrameView::RunPaintLifecyclePhase"));
    parts.timers.push(total(outside, "TimerFire"));
  }
  return { clicks: Math.max(0, clicks.length - 1), median_ms: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, ms(median(v))])) };
}

/** One cold load: the module's compile and the construction, with the
 *  functions V8 compiled on their first call inside each. */
export function cold(events) {
  const main = mainThread(events);
  const marks = new Map();
  for (const e of events) if (typeof e.name === "string" && e.name.startsWith("alp:") && !marks.has(e.name)) marks.set(e.name, e.ts);
  const span = (from, to) => {
    const a = marks.get(from), b = marks.get(to);
    if (a === undefined || b === undefined) return null;
    const inside = within(main, a, b);
    const lazy = inside.filter((e) => e.name === "wasm.CompileLazy");
    return { ms: ms(b - a), lazy_compiles: lazy.length, lazy_compile_ms: ms(lazy.reduce((x, e) => x + e.dur, 0)) };
  };
  return { compile: span("alp:wasm-start", "alp:wasm-ready"), construct: span("alp:construct", "alp:ready") };
}
