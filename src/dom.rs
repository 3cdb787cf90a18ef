//! Small DOM moves the renderer makes again and again: show or hide a
//! panel, mark the pressed button of a group, keep a row or a card in its
//! panel's view, find and give back a card's focus. No state, no
//! decisions: each takes the elements it acts on. And the console's
//! share of the notices (said once each, for the author).

use agent_loop_core::session::{Notice, Session};
use agent_loop_core::vocab::{Code, Function};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// The Python / Rust buttons: `code` pressed, the group named `label`;
/// hidden when there is `one` listing (a recorded program's).
pub(crate) fn listing_switch(root: &Element, code: Code, one: bool, label: &str) {
    let _ = root.set_attribute("data-listing", code.name());
    set_pressed(root, ".alp-listing", |b| b.get_attribute("data-listing").as_deref() == Some(code.name()));
    let group = root.query_selector(".alp-listings").ok().flatten();
    if let Some(group) = &group {
        let _ = group.set_attribute("aria-label", label);
    }
    set_hidden(group, one);
}

/// Set an attribute, only when its value changes: a write of the same
/// value still makes the browser restyle what the attribute can match.
pub(crate) fn set_attr(el: &Element, name: &str, value: &str) {
    if el.get_attribute(name).as_deref() != Some(value) {
        let _ = el.set_attribute(name, value);
    }
}

/// Show `el`, or hide it (the `hidden` attribute), only when that changes.
pub(crate) fn set_hidden(el: Option<Element>, hidden: bool) {
    if let Some(el) = el.filter(|el| el.has_attribute("hidden") != hidden) {
        let _ = if hidden { el.set_attribute("hidden", "") } else { el.remove_attribute("hidden") };
    }
}

/// Every element under `root` that matches `selector`.
pub(crate) fn all(root: &Element, selector: &str) -> Vec<Element> {
    let Ok(list) = root.query_selector_all(selector) else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.item(i).and_then(|n| n.dyn_into::<Element>().ok())).collect()
}

/// In a group of toggle buttons, press the ones `pressed` says and
/// release the others (`aria-pressed`).
pub(crate) fn set_pressed(root: &Element, selector: &str, pressed: impl Fn(&Element) -> bool) {
    for b in all(root, selector) {
        let on = pressed(&b);
        set_attr(&b, "aria-pressed", if on { "true" } else { "false" });
    }
}

/// In a group of toggle buttons, press those `wanted` selects and release
/// the pressed ones `keep` does not keep: a few elements, not the whole
/// group (its buttons come with aria-pressed="false").
pub(crate) fn press_only(root: &Element, group: &str, wanted: &[String], keep: impl Fn(&Element) -> bool) {
    for b in all(root, &format!(r#"{group}[aria-pressed="true"]"#)).iter().filter(|b| !keep(b)) {
        set_attr(b, "aria-pressed", "false");
    }
    for b in wanted.iter().filter_map(|w| root.query_selector(w).ok().flatten()) {
        set_attr(&b, "aria-pressed", "true");
    }
}

/// The index of the message card under `root` that has the keyboard
/// focus, if any.
pub(crate) fn focused_card(root: &HtmlElement) -> Option<String> {
    // The focus as this playground's root (a shadow root or the document) sees it.
    let scope = root.get_root_node();
    let active = js_sys::Reflect::get(&scope, &"activeElement".into()).ok()?.dyn_into::<Element>().ok()?;
    let node: &web_sys::Node = root.as_ref();
    if !node.contains(Some(&active)) {
        return None;
    }
    active.get_attribute("data-message-index")
}

/// Give the focus back to a card after the figure was drawn anew.
pub(crate) fn focus_card(root: &HtmlElement, index: &str) {
    let selector = format!(r#".alp-figure [data-message-index="{index}"]"#);
    let Some(card) = root.query_selector(&selector).ok().flatten() else { return };
    focus_still(&card);
}

/// Move the focus without letting the browser scroll the page to it (a
/// learner's place on the page is theirs); an element below the window's
/// edge is then brought up just far enough to be seen.
pub(crate) fn focus_still(el: &Element) {
    // SVG elements have focus() too; call it without a web-sys binding.
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"preventScroll".into(), &true.into());
    if let Ok(focus) = js_sys::Reflect::get(el, &"focus".into()) {
        if let Some(focus) = focus.dyn_ref::<js_sys::Function>() {
            let _ = focus.call1(el, &options);
        }
    }
    let below = web_sys::window()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .is_some_and(|h| el.get_bounding_client_rect().bottom() > h);
    if below {
        el.scroll_into_view_with_bool(false);
    }
}

/// Keep the current row visible inside the code panel only (the page
/// itself does not jump).
pub(crate) fn scroll_into_code(row: &Element, code: Option<Element>) {
    let (Some(code), Ok(row)) = (code, row.clone().dyn_into::<HtmlElement>()) else { return };
    let Ok(code) = code.dyn_into::<HtmlElement>() else { return };
    let top = row.offset_top();
    let bottom = top + row.offset_height();
    let view_top = code.scroll_top();
    let view_h = code.client_height();
    // About three lines of context above and below the row, less when a
    // wrapped row is tall: the whole row always fits in the panel.
    let context = ((view_h - (bottom - top)) / 2).clamp(0, 60);
    if top - context < view_top {
        code.set_scroll_top((top - context).max(0));
    } else if bottom + context > view_top + view_h {
        code.set_scroll_top(bottom - view_h + context);
    }
}

/// A phone: the controls stick to the top of the screen. A current line
/// that would sit under them is brought out from under the bar; the page
/// moves only then (a learner reading the figure below stays there).
///
/// In a course page, after a move (`moved`: never on its own), a line
/// below the window comes up, the controls kept on screen.
///
/// And the stage under the code (a phone) comes up with its line: when the
/// line is on screen and its stage's end is below the window, the page
/// moves up just enough, never taking the line under the bar.
pub(crate) fn clear_of_bar(row: &Element, stage: Option<Element>, bar: Option<Element>, moved: bool) {
    let (Some(bar), Some(window)) = (bar, web_sys::window()) else { return };
    let (r, b) = (row.get_bounding_client_rect(), bar.get_bounding_client_rect());
    let stuck = b.top() <= 1.0;
    if stuck && r.bottom() > b.top() && r.top() < b.bottom() {
        window.scroll_by_with_x_and_y(0.0, r.top() - b.bottom() - 6.0);
        return;
    }
    let height = window.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    // An element lower in a course page (controls on screen, its code
    // taller than what is left of the window): the line comes up into
    // view, the controls no higher than the window's top.
    let mut r = r;
    if moved && !stuck && r.bottom() > height && b.top() >= 0.0 && b.top() < height {
        window.scroll_by_with_x_and_y(0.0, (r.bottom() - height + 8.0).min(b.top()));
        // (then the stage, measured where the scroll left it)
        r = row.get_bounding_client_rect();
    }
    let b = bar.get_bounding_client_rect();
    // (the stage brought up only by a move: a redraw leaves the page where it is)
    let Some(s) = stage.filter(|_| moved).map(|s| s.get_bounding_client_rect()) else { return };
    let row_on_screen = r.top() >= b.bottom().min(height) && r.bottom() <= height;
    if row_on_screen && s.top() > r.top() && s.bottom() > height {
        let up = (s.bottom() - height + 8.0).min(r.top() - b.height() - 6.0);
        if up > 0.0 {
            window.scroll_by_with_x_and_y(0.0, up);
        }
    }
}

/// The phone's code | record switch: which of the two fills the panel
/// under the controls (the caption stays under it either way), its own
/// place kept: the current `row` in the code, the new card in the record.
pub(crate) fn show_view(root: &Element, record: bool, row: Option<&Element>) {
    let view = if record { "record" } else { "code" };
    set_attr(root, "data-view", view);
    set_pressed(root, ".alp-view", |b| b.get_attribute("data-view").as_deref() == Some(view));
    let q = |selector: &str| root.query_selector(selector).ok().flatten();
    match row {
        _ if record => scroll_to_change(q(".alp-figure")),
        Some(row) => scroll_into_code(row, q(".alp-code")),
        None => {}
    }
    if let Some(shown) = in_view(root, row) {
        clear_of_bar(&shown, q(".alp-caption"), q(".alp-dock"), true);
    }
}

/// After a step is written: its row in the code panel, what it shows
/// clear of the dock with the caption on screen, and the figure at the
/// card that changed. `moved`: the step moved (a redraw, a tap on a
/// language, leaves the page where it is unless the line is under the dock).
pub(crate) fn keep_in_view(root: &Element, row: Option<&Element>, moved: bool, figure_changed: bool) {
    let q = |selector: &str| root.query_selector(selector).ok().flatten();
    if let (true, Some(dock), Some(window)) = (moved && phone(root), q(".alp-dock"), web_sys::window()) {
        // A phone: the column comes up whole under the dock, as tall as the screen.
        let (top, height) =
            (dock.get_bounding_client_rect().top(), window.inner_height().ok().and_then(|h| h.as_f64()));
        if top > 1.0 && height.is_some_and(|h| top < h) {
            window.scroll_by_with_x_and_y(0.0, top);
        }
    }
    if let Some(row) = row {
        scroll_into_code(row, q(".alp-code"));
    }
    if let Some(shown) = in_view(root, row) {
        clear_of_bar(&shown, q(".alp-caption"), q(".alp-dock"), moved);
    }
    if figure_changed {
        scroll_to_change(q(".alp-figure"));
    }
}

/// What a step keeps on screen, clear of the dock: the current `row`, or
/// the record while the phone's switch shows it instead of the code.
pub(crate) fn in_view(root: &Element, row: Option<&Element>) -> Option<Element> {
    if root.get_attribute("data-view").as_deref() == Some("record") && phone(root) {
        root.query_selector(".alp-figure").ok().flatten()
    } else {
        row.cloned()
    }
}

/// Whether the element is laid out as on a phone (its switch shown).
fn phone(root: &Element) -> bool {
    let views = root.query_selector(".alp-views").ok().flatten();
    views.is_some_and(|v| v.get_bounding_client_rect().height() > 0.0)
}

/// The switch's record button: how many messages the record holds, and
/// whether this step added one (a mark, for a learner reading the code).
pub(crate) fn record_count(root: &Element, len: usize, grew: bool) {
    let Ok(Some(count)) = root.query_selector(".alp-view-count") else { return };
    let len = len.to_string();
    if count.text_content().as_deref() != Some(len.as_str()) {
        count.set_text_content(Some(&len));
    }
    set_attr(&count, "data-grew", if grew { "true" } else { "false" });
}

/// A roving Tab stop among the line numbers: `key` (↑ ↓ Home End) moves
/// the focus from `from` to another line number of the listing, which
/// becomes the one Tab stop. Whether the key was one of these.
pub(crate) fn rove(root: &Element, from: &Element, key: &str) -> bool {
    let all = all(root, ".alp-code .alp-bp");
    let Some(i) = all.iter().position(|b| b == from) else { return false };
    let to = match key {
        "ArrowUp" => i.saturating_sub(1),
        "ArrowDown" => (i + 1).min(all.len() - 1),
        "Home" => 0,
        "End" => all.len() - 1,
        _ => return false,
    };
    for b in &all {
        let _ = b.set_attribute("tabindex", "-1");
    }
    let _ = all[to].set_attribute("tabindex", "0");
    if let Ok(button) = all[to].clone().dyn_into::<HtmlElement>() {
        let _ = button.focus();
    }
    // The code panel follows the focus (its row, with context around it).
    let code = root.query_selector(".alp-code").ok().flatten();
    if let Some(row) = all[to].closest(".alp-row").ok().flatten() {
        scroll_into_code(&row, code);
    }
    true
}

/// Bring the newest changed card of the figure into its panel's view.
pub(crate) fn scroll_to_change(figure: Option<Element>) {
    let Some(figure) = figure else { return };
    let Some(changed) = all(&figure, ".alp-changed").pop() else { return };
    let (card, panel) = (changed.get_bounding_client_rect(), figure.get_bounding_client_rect());
    let top = card.top() - panel.top() + f64::from(figure.scroll_top());
    let bottom = top + card.height();
    // (the status strip stays at the top of the panel: the view starts under it)
    let head = figure
        .query_selector(".alp-fig-head")
        .ok()
        .flatten()
        .map_or(0.0, |h| h.get_bounding_client_rect().height());
    let (view_top, view_h) =
        (f64::from(figure.scroll_top()) + head, f64::from(figure.client_height()) - head);
    // Show its bottom (where a new card grows), but never lose its top.
    let target = if top < view_top || bottom - top > view_h {
        top - 12.0 - head
    } else {
        bottom - view_h - head + 12.0
    };
    if top < view_top || bottom > view_top + view_h {
        figure.set_scroll_top(target.max(0.0) as i32);
    }
}

/// The first layout that depends on the element's width, once it has one
/// (an element hidden when it connects gets it on its first resize): the
/// setup panel stays open only in a wide element on a wide screen, never
/// when compact. (A column under 760px stacks the panels and lowers them:
/// element.css's container query.)
pub(crate) fn fit_width(root: &HtmlElement, compact: bool, width: f64) {
    let screen = web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|w| w.as_f64());
    let from = f64::from(crate::first_view::SETUP_OPEN_FROM);
    let wide = screen.is_none_or(|w| w >= from) && width >= from && !compact;
    if let (false, Ok(Some(setup))) = (wide, root.query_selector(".alp-setup")) {
        let _ = setup.remove_attribute("open");
    }
}

/// Mark exactly one listing row as the line about to run (`aria-current`):
/// unmark `old` and any stale mark, and return the row now marked.
pub(crate) fn mark_row(
    root: &HtmlElement,
    old: Option<Element>,
    current: Option<(Function, u32)>,
) -> Option<Element> {
    if let Some(old) = old {
        let _ = old.remove_attribute("aria-current");
    }
    for stale in all(root, r#"[aria-current="step"]"#) {
        let _ = stale.remove_attribute("aria-current");
    }
    let (function, line) = current?;
    let sel = format!(r#".alp-row[data-function="{}"][data-line="{line}"]"#, function.name());
    let row = root.query_selector(&sel).ok().flatten()?;
    let _ = row.set_attribute("aria-current", "step");
    Some(row)
}

/// Say in the console, once each, the notices and the broken scenario files
/// (`src=`) the page has not said yet: for the author, who reads it.
pub(crate) fn warn_in_console(session: &Session, warned: &mut Vec<Notice>, warned_files: &mut usize) {
    // Each notice is also said once in the console, for the author (not
    // what is under way: the learner's only). Known by what it says, not
    // by how many there were: a notice that takes another's place is new.
    let said: Vec<Notice> = session.notices().iter().filter(|n| !n.is_progress()).cloned().collect();
    for notice in said.iter().filter(|n| !warned.contains(n)) {
        let text = format!("agent-loop-playground: {}", notice.text(session.lang()));
        web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&text));
    }
    *warned = said;
    // And so is each broken scenario file (src=), with its problems, and
    // each one with near misses; the API's addScenario throws its
    // problems to its caller instead.
    let broken: Vec<&agent_loop_core::session::Entry> = session
        .catalogue()
        .entries()
        .iter()
        .filter(|e| {
            (e.parsed.is_err() || !e.warnings.is_empty()) && e.file != agent_loop_core::session::ADDED
        })
        .collect();
    for entry in broken.iter().skip(*warned_files) {
        let problems = entry.parsed.as_ref().err().into_iter().flatten();
        let warnings = entry.warnings.iter().map(|w| format!("{}: warning: {w}", entry.file));
        let text: Vec<String> = problems.map(|p| format!("{}: {p}", entry.file)).chain(warnings).collect();
        let text = format!("agent-loop-playground: {}", text.join("; "));
        web_sys::console::warn_1(&wasm_bindgen::JsValue::from_str(&text));
    }
    *warned_files = broken.len();
}
