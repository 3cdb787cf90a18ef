//! The page's frame: the markup every playground starts from (the bar,
//! the notices, the dock of controls, timeline and the phone's code |
//! record switch, the panels), empty of words, and the tables of where
//! the renderer puts each word (pure: compiled and tested natively too).

use crate::markup::esc;
use agent_loop_core::i18n::Lang;

/// The page's frame: bar, notices, controls, timeline, panels. Filled in
/// by the renderer; every word is set from the language tables. The panel
/// titles are headings of `heading_level` when given; otherwise plain text,
/// so that an embedded playground adds nothing to the host page's outline.
pub fn shell(heading_level: Option<u8>) -> String {
    let h = heading_level.map_or(String::new(), |n| format!(r#" role="heading" aria-level="{n}""#));
    // The course's language first, then the others.
    let first = Lang::default_lang();
    let langs: String = std::iter::once(first)
        .chain(Lang::all().into_iter().filter(|l| *l != first))
        .map(|l| {
            format!(
                r#"<button type="button" class="alp-lang" data-lang="{code}" lang="{html}">{name}</button>"#,
                code = esc(l.code()),
                html = esc(l.html_lang()),
                name = esc(l.name())
            )
        })
        .collect();
    format!(
        r#"<div class="alp-bar">
  <label class="alp-pick"><span class="alp-l-scenario"></span> <select class="alp-select"></select></label>
  <div class="alp-langs" role="group">{langs}</div>
  <div class="alp-listings" role="group"><button type="button" class="alp-listing" data-listing="python" translate="no">Python</button><button type="button" class="alp-listing" data-listing="rust" translate="no">Rust</button></div>
  <label class="alp-reveal"><input type="checkbox" class="alp-reveal-box"> <span class="alp-l-reveal"></span></label>
  <label class="alp-predict"><input type="checkbox" class="alp-predict-box"> <span class="alp-l-predict"></span></label>
</div>
<div class="alp-problems" data-role="notice" role="status" hidden></div>
<div class="alp-dock"><div class="alp-controls" role="toolbar"></div>
<div class="alp-timeline"><input type="range" class="alp-slider" min="0" max="0" value="0"><svg class="alp-ticks" viewBox="0 0 1000 8" preserveAspectRatio="none" aria-hidden="true"></svg><span class="alp-counter" aria-live="off"></span></div>
<div class="alp-views" role="group"><button type="button" class="alp-view" data-view="code" aria-pressed="true"><span class="alp-l-vcode"></span></button><button type="button" class="alp-view" data-view="record" aria-pressed="false"><span class="alp-l-vrecord"></span> <span class="alp-view-count"></span></button></div></div>
<p class="alp-bp-note" data-role="unreached" aria-live="polite" hidden></p>
<div class="alp-main">
  <section class="alp-code-panel"><div class="alp-h3"{h}><span class="alp-l-code"></span> <span class="alp-stack" translate="no"></span></div><div class="alp-code" tabindex="-1"></div><p class="alp-provenance alp-l-provenance"></p></section>
  <section class="alp-figure-panel"><section class="alp-caption" data-role="caption"><div class="alp-caption-title"{h}></div><p class="alp-caption-body"></p></section><section class="alp-predict-panel" data-role="predict" hidden></section><section class="alp-fig-pair" data-role="pair" hidden></section><div class="alp-h3 alp-l-record"{h}></div><div class="alp-figure"><div class="alp-fig-head"></div><div class="alp-fig-record"></div><div class="alp-fig-staged"></div></div><div class="alp-card-full" data-role="card" aria-live="polite"></div><div class="alp-sr alp-figure-text"></div></section>
</div>
<section class="alp-beside" data-role="beside" hidden></section>
<section class="alp-compare" data-role="compare" tabindex="-1" hidden></section>
<div class="alp-sr alp-live" aria-live="polite"></div>
<div class="alp-lower">
  <section class="alp-locals-panel"><div class="alp-h3 alp-l-locals"{h}></div><dl class="alp-locals" translate="no"></dl></section>
  <section class="alp-output-panel"><div class="alp-h3 alp-l-output"{h}></div><pre class="alp-output" data-role="output" translate="no"></pre></section>
</div>
<details class="alp-setup" data-role="setup" open></details>"#
    )
}

/// The label elements of the shell and the word each shows.
pub const LABELS: [(&str, &str); 9] = [
    (".alp-l-predict", "predict"),
    (".alp-l-scenario", "scenario"),
    (".alp-l-reveal", "reveal"),
    (".alp-l-code", "code"),
    (".alp-l-record", "record"),
    (".alp-l-locals", "locals"),
    (".alp-l-output", "output"),
    (".alp-l-vcode", "code"),
    (".alp-l-vrecord", "record"),
];

/// The groups of the shell named for a screen reader, and the word of each.
pub const NAMED: [(&str, &str); 4] = [
    (".alp-controls", "controls"),
    (".alp-slider", "timeline"),
    (".alp-langs", "language"),
    (".alp-views", "views"),
];
