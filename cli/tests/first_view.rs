//! `first-view`: the element's first view for its attributes, natively and
//! from the Node build alike; what it cannot draw refused by name; the
//! attributes it takes the element's own (www/element/attributes.js); a
//! program's pack read from its address; a notice said as a warning.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_loop_cli::first_view::{DRAWN, REFUSED, UNDRAWN};
use common::record::{native, node, root, Ran};

/// The CLI on `args`, natively, and the Node build's run when it can run
/// here (the same bytes are asked of it, but the usage's name for itself).
fn both(args: &[&str]) -> Ran {
    let ran = native(args, None);
    if let Some(from_node) = node(args) {
        let said = |r: &Ran| (r.code, r.out.clone(), r.err.lines().next().map(str::to_string));
        assert_eq!(said(&from_node), said(&ran), "the Node build says the same for {args:?}");
    }
    ran
}

/// A shipped scenario's id (tests name no lesson: the fixtures do).
fn shipped() -> String {
    let scenarios = agent_loop_core::scenario::load_shipped();
    scenarios.into_iter().find_map(|(_, s)| s.ok()).expect("a shipped scenario").id
}

#[test]
fn it_prints_the_markup_for_the_elements_attributes() {
    let id = shipped();
    let scenario = format!("scenario={id}");
    let ran = both(&["first-view", &scenario, "heading-level=2"]);
    assert_eq!((ran.code, ran.err.as_str()), (0, ""), "{}", ran.err);
    let view = ran.out.trim_end();
    assert!(
        view.starts_with(r#"<template shadowrootmode="open"><link rel="stylesheet" href="first-view.css">"#)
    );
    assert!(view.ends_with("</template>"));
    // The attributes it was made for, by name, as the element reads its own.
    let made_for = format!(
        r#"data-for="[[&quot;heading-level&quot;,&quot;2&quot;],[&quot;scenario&quot;,&quot;{id}&quot;]]""#
    );
    assert!(view.contains(&made_for), "{made_for}");
    assert!(view.contains(r#"role="heading" aria-level="2""#), "the panel titles are headings");
    assert!(view.contains(&format!(r#"<option value="{id}" selected>"#)), "its scenario picked");
    let css = both(&["first-view", &scenario, "--stylesheet", "/lessons/alp/first-view.css"]);
    assert!(css.out.contains(r#"href="/lessons/alp/first-view.css""#));
    // `compact` as the element reads it: present, and not "off".
    let compact = |value: &str| both(&["first-view", &scenario, value]).out.contains("alp-compact");
    assert!(compact("compact") && compact("compact=") && !compact("compact=off"));
    // A box for each width range asked for, in that order (wide and narrow unless asked).
    let firsts = |out: &str| out.matches(r#" data-first=""#).map(|_| ()).count();
    assert_eq!(firsts(&ran.out), 2);
    assert!(ran.out.find(r#"data-first="wide""#) < ran.out.find(r#"data-first="narrow""#));
    let column = both(&["first-view", &scenario, "--boxes", "column,narrow"]);
    assert_eq!((column.code, firsts(&column.out)), (0, 2), "{}", column.err);
    assert!(column.out.find(r#"data-first="column""#) < column.out.find(r#"data-first="narrow""#));
    let unknown = both(&["first-view", &scenario, "--boxes", "wide,tiny"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown
            .err
            .starts_with(r#"--boxes: no box named "tiny": the boxes are wide (1056 px and wider), medium"#),
        "{}",
        unknown.err
    );
}

#[test]
fn an_attribute_it_cannot_draw_is_refused_by_name() {
    for attribute in ["height=300", "src=more.json", "listing-src=lesson.py"] {
        let ran = both(&["first-view", attribute]);
        let name = attribute.split('=').next().unwrap();
        assert_eq!(ran.code, 2, "{attribute}: {}", ran.err);
        let first = ran.err.lines().next().unwrap_or("");
        assert!(
            first.starts_with(&format!("{name}: the first view cannot be made for an element")),
            "{first}"
        );
        assert!(first.contains("draws its own view once ready"), "{first}");
        assert!(ran.out.is_empty());
    }
    // A name that is not the element's (a host's `id`, a typo) is left out, and said.
    let others = both(&["first-view", "id=demo", "scenaro=typo", "lang=en"]);
    assert_eq!(others.code, 0, "{}", others.err);
    let said: Vec<&str> = others.err.lines().collect();
    assert_eq!(
        said[..2],
        [
            "warning: id: not an attribute of the element: the view is made without it",
            "warning: scenaro: not an attribute of the element: the view is made without it"
        ]
    );
    assert!(
        others.out.contains(r#"data-for="[[&quot;lang&quot;,&quot;en&quot;]]""#),
        "made for the element's own"
    );
    let twice = both(&["first-view", "lang=en", "lang=zh"]);
    assert_eq!(twice.code, 2);
    assert!(twice.err.starts_with("lang: given twice"), "{}", twice.err);
}

/// Each attribute it draws is the element's, handed over under the same
/// option; each it leaves alone is the element's too; and every attribute
/// of the element is one or the other, or is refused (a new attribute
/// must be placed here).
#[test]
fn the_attributes_it_takes_are_the_elements_own() {
    let table = std::fs::read_to_string(root().join("www/element/attributes.js")).unwrap();
    let entry = |name: &str| {
        let at = format!(r#"name: "{name}","#);
        table
            .lines()
            .find(|l| l.contains(&at))
            .unwrap_or_else(|| panic!("no attribute {name} in attributes.js"))
    };
    for (name, option) in DRAWN {
        assert!(entry(name).contains(&format!(r#"option: "{option}""#)), "{name} is handed over as {option}");
    }
    for name in UNDRAWN {
        entry(name);
    }
    let refused: Vec<&str> = REFUSED.iter().copied().chain(["listing-src-${code}"]).collect();
    let names: Vec<&str> =
        table.lines().filter_map(|l| l.split(r#"name: ""#).nth(1)?.split('"').next()).collect();
    for name in
        names.iter().filter(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '-') || n.contains('$'))
    {
        let placed = DRAWN.iter().any(|(n, _)| n == name) || UNDRAWN.contains(name) || refused.contains(name);
        assert!(placed, "attributes.js has {name}: first-view draws it, leaves it, or refuses it");
    }
}

#[test]
fn a_programs_pack_is_read_from_its_address_and_named_so() {
    let pack = root().join("examples/lesson-three/lesson-three.pack.json");
    let src = format!("program-src={}", pack.display());
    let ran = both(&["first-view", &src, "lang=en"]);
    assert_eq!(ran.code, 0, "{}", ran.err);
    assert!(ran.out.contains("Recorded by CPython"), "the pack's run, its provenance said");
    assert!(ran.out.contains(&format!("[&quot;program-src&quot;,&quot;{}&quot;]", pack.display())));
    // The file elsewhere, the address as the page writes it.
    let given = format!("--program={}", pack.display());
    let apart = both(&["first-view", "program-src=lessons/three.json", "--program", &given[10..]]);
    assert_eq!(apart.code, 0, "{}", apart.err);
    assert!(apart.out.contains("lessons/three.json"));
    let missing = both(&["first-view", "program-src=no/such/pack.json"]);
    assert_eq!(missing.code, 1);
    assert!(missing.err.starts_with("no/such/pack.json: cannot read"), "{}", missing.err);
}

#[test]
fn what_the_element_would_say_is_said_as_a_warning() {
    let ran = both(&["first-view", "scenario=no-such-scenario", "lang=en"]);
    assert_eq!(ran.code, 0);
    assert!(ran.err.starts_with("warning: There is no scenario no-such-scenario"), "{}", ran.err);
    assert!(ran.out.contains("There is no scenario no-such-scenario"), "the view shows the notice too");
}
