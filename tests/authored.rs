//! An author's own listing (docs/listing-format.md): checked without
//! Python, registered, shown as written and stepped with the recorded run;
//! each mistake is a finding that names the file, the line and the mark.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::debugger::Command;
use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::{self, register_listing, stamp};
use agent_loop_core::programs::lesson_one;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::vocab::Code;

fn listing(name: &str) -> String {
    std::fs::read_to_string(format!("{}/fixtures/listings/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn zh() -> Lang {
    Lang::parse("zh").unwrap()
}

#[test]
fn the_program_s_own_listings_pass_the_author_checks() {
    for (code, text) in lesson_one::PROGRAM.python {
        let lang = Lang::parse(code).unwrap();
        let (listing, remarks) =
            register_listing("runtime.py", text.get(), lang).unwrap_or_else(|p| panic!("{code}: {p:?}"));
        assert!(remarks.is_empty(), "{code}: its own words are the program's: {remarks:?}");
        // The same lines as the built-in listing, for every key.
        for f in lesson_one::FUNCTIONS {
            for key in lesson::keys(f) {
                assert_eq!(
                    lesson::line_of_key(listing, key),
                    lesson::line_of_key(Code::Python, key),
                    "{code} {key:?}"
                );
            }
        }
    }
}

#[test]
fn an_author_s_listing_is_shown_as_written_and_stepped() {
    let text = listing("lesson.zh.py");
    // (registered as the page registers it: its stamp line blanked)
    let (code, remarks) =
        register_listing("lesson.zh.py", &stamp::split(&text).0, zh()).expect("the good listing passes");
    assert!(matches!(code, Code::Authored(_)));
    let keys: Vec<&str> = remarks.iter().map(|r| r.key).collect();
    assert_eq!(keys, ["listing_own_words"], "its own emit line is said once");
    // Verbatim: each shown line is the file's line without its mark.
    let shown = lesson::listing_in(code, lesson_one::ASK_CLAUDE);
    let file: Vec<&str> = text.lines().collect();
    for line in &shown.lines {
        let written = file[line.source as usize - 1];
        assert_eq!(line.text, written.split("  #| ").next().unwrap().trim_end(), "line {}", line.source);
    }
    assert!(shown.lines.iter().any(|l| l.text.contains("工作约定、完整记录和工具说明放进同一次请求")));
    // The request stands on the author's one-line call.
    let create = lesson::line_of_key(code, (lesson_one::ASK_CLAUDE, "ask.create", 1));
    assert!(shown.lines[create as usize - 1].text.contains("client.messages.create(model=model"));

    // A session shows it for zh and steps through report with a breakpoint on its lines.
    let options = Options {
        scenario: "report".into(),
        lang: "zh".into(),
        listings: vec![("lesson.zh.py".into(), None, Ok(text.clone()))],
        ..Options::default()
    };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    assert_eq!(s.replay().code(), code);
    assert!(s.notices().iter().any(|n| n.key == "listing_own_words"), "{:?}", s.notices());
    let save = lesson::line_of_key(code, (lesson_one::RUN_LOOP, "loop.save_results", 1));
    assert_eq!(s.toggle_line(lesson_one::RUN_LOOP, save), Ok(true));
    s.command(Command::Debug);
    let step = s.replay().step().unwrap();
    assert_eq!((step.label, lesson::line_in(code, step)), ("loop.save_results", save));
    let listing = lesson::listing_in(code, lesson_one::RUN_LOOP);
    assert!(listing.lines[save as usize - 1].text.contains("messages.append({\"role\": \"user\""));
    // Rust still shows the Rust; back to Python shows the author's again.
    s.set_code(Code::Rust);
    assert_eq!(s.replay().code(), Code::Rust);
    s.set_code(Code::Python);
    assert_eq!(s.replay().code(), code);
}

/// The mistakes of fixtures/listings/mistakes.json: (file, its text, the
/// finding's key, mark and line) — lesson.zh.py with one text replaced.
type Mistake = (String, String, Option<String>, Option<String>, Option<u64>);

fn mistakes() -> Vec<Mistake> {
    let good = listing("lesson.zh.py");
    let cases: serde_json::Value = serde_json::from_str(&listing("mistakes.json")).unwrap();
    let cases = cases["cases"].as_array().unwrap().iter();
    cases
        .map(|c| {
            let (from, to) = (c["replace"][0].as_str().unwrap(), c["replace"][1].as_str().unwrap());
            assert_eq!(good.matches(from).count(), 1, "{from:?} is in lesson.zh.py once");
            let text = good.replace(from, to);
            let string = |k: &str| c[k].as_str().map(str::to_string);
            (string("file").unwrap(), text, string("finding"), string("mark"), c["line"].as_u64())
        })
        .collect()
}

#[test]
fn each_mistake_names_the_file_the_line_and_the_mark() {
    let mut named = 0;
    for (file, text, key, mark, line) in mistakes() {
        let (Some(key), Some(mark)) = (key, mark) else {
            // (a listing whose marks pass and whose code departs: check --listing's)
            assert!(register_listing(&file, &text, zh()).is_ok(), "{file}");
            continue;
        };
        let problems = register_listing(&file, &text, zh()).expect_err(&file);
        assert_eq!(problems.len(), 1, "{file}: {problems:?}");
        let p = &problems[0];
        assert_eq!(p.key, key, "{file}");
        let value = |name: &str| p.values.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
        assert_eq!(value("file"), Some(file.clone()));
        assert_eq!(value("mark"), Some(mark.clone()), "{file}");
        assert_eq!(value("line").map(|l| l.parse::<u64>().unwrap()), line, "{file}");
        // Said in the reader's language, naming the file.
        let en = p.text(Lang::parse("en").unwrap());
        assert!(en.starts_with(&file) && en.contains(&mark), "{en}");
        assert!(p.text(zh()).contains(&mark));
        // The page keeps the built-in listing and says so.
        let options = Options { listings: vec![(file.clone(), None, Ok(text))], ..Options::default() };
        let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        assert_eq!(s.replay().code(), Code::Python);
        assert!(s.notices().iter().any(|n| n.key == key));
        assert!(s.notices().iter().any(|n| n.key == "listing_not_used"));
        named += 1;
    }
    assert_eq!(named, 3, "a missing, a duplicate and a misplaced mark");
}

#[test]
fn marks_out_of_order_unknown_or_outside_a_function_are_named() {
    let good = listing("lesson.zh.py");
    // Two statements swapped with their marks: the record is saved before the results are made.
    let swapped = good.replace(
        "        results = []  #| loop.results\n",
        "",
    ).replace(
        "        messages.append({\"role\": \"user\", \"content\": results})  #| loop.save_results\n",
        "        messages.append({\"role\": \"user\", \"content\": results})  #| loop.save_results\n        results = []  #| loop.results\n",
    );
    assert_ne!(swapped, good);
    let keys = |text: &str| {
        register_listing("x.py", text, zh())
            .err()
            .unwrap_or_default()
            .iter()
            .map(|p| p.key)
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&swapped), ["listing_order"]);
    assert_eq!(keys(&good.replace("#| loop.saved", "#| loop.nope")), ["listing_unknown", "listing_missing"]);
    assert_eq!(keys(&format!("X = 1  #| loop.ask\n{good}")), ["listing_outside"]);
    assert_eq!(keys(&good.replace("def run_main(", "def run_other(")), ["listing_no_function"]);
}

/// The page's session on one listing for zh: the listing it shows and the
/// keys of its notices.
fn shown_with(file: &str, text: &str) -> (Code, Vec<&'static str>) {
    let options = Options {
        scenario: "report".into(),
        lang: "zh".into(),
        listings: vec![(file.into(), None, Ok(text.to_string()))],
        ..Options::default()
    };
    let s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    (s.replay().code(), s.notices().iter().map(|n| n.key).collect())
}

#[test]
fn the_fixture_listing_s_stamp_is_current() {
    let text = listing("lesson.zh.py");
    let (blanked, found) = stamp::split(&text);
    let found = found.expect("fixtures/listings/lesson.zh.py carries a stamp");
    let now = stamp::of(&stamp::without(&text).0, stamp::fingerprint(&lesson_one::PROGRAM));
    assert_eq!(
        found.value, now,
        "the lesson changed since the fixture was stamped: run \
         `cargo run --release -- check --listing fixtures/listings/lesson.zh.py --stamp`"
    );
    // The stamp line is blanked, so no line of the listing moves.
    assert_eq!(blanked.lines().count(), text.lines().count());
    assert!(blanked.lines().nth(found.line as usize - 1).unwrap().is_empty());
}

#[test]
fn a_listing_without_its_stamp_or_with_another_s_is_never_shown() {
    let text = listing("lesson.zh.py");
    let (blanked, _) = stamp::without(&text);
    // Stamped: shown, with only the remark of its own words.
    assert!(
        matches!(shown_with("lesson.zh.py", &text), (Code::Authored(_), k) if k == ["listing_own_words"])
    );
    // No stamp: the built-in listing, and why.
    let (code, keys) = shown_with("lesson.zh.py", &blanked);
    assert_eq!((code, keys), (Code::Python, vec!["listing_unstamped", "listing_not_used"]));
    // Its marks still pass and its code departs (CPython would take a
    // blank text for an answer): the stamp is another listing's.
    let departs = mistakes().into_iter().find(|m| m.0 == "departs.py").unwrap().1;
    assert!(register_listing("departs.py", &stamp::split(&departs).0, zh()).is_ok());
    let (code, keys) = shown_with("departs.py", &departs);
    assert_eq!((code, keys), (Code::Python, vec!["listing_stamp_stale", "listing_not_used"]));
    // A comment added anywhere is a change too: the stamp covers every byte.
    let (code, _) = shown_with("lesson.zh.py", &format!("# 注释\n{text}"));
    assert_eq!(code, Code::Python);
    // The program's own listings are proven by the test suite: no stamp needed.
    for (lang, own) in lesson_one::PROGRAM.python {
        let (code, keys) = shown_with("runtime.py", own.get());
        assert!(matches!(code, Code::Authored(_)), "{lang}: {keys:?}");
        assert!(!keys.contains(&"listing_unstamped"), "{lang}");
    }
}

#[test]
fn a_stamp_covers_the_lesson_it_was_run_against() {
    let text = stamp::without(&listing("lesson.zh.py")).0;
    let one = stamp::fingerprint(&lesson_one::PROGRAM);
    let two = stamp::fingerprint(&agent_loop_core::programs::lesson_two::PROGRAM);
    assert_ne!(one, two);
    assert_ne!(stamp::of(&text, one), stamp::of(&text, two));
    assert_ne!(stamp::of(&text, one), stamp::of(&format!("{text} "), one));
    // Written in, replaced, never doubled; no line moves.
    let once = stamp::stamped(&text, "0123456789abcdef");
    let twice = stamp::stamped(&once, &stamp::of(&text, one));
    assert_eq!(once.lines().count(), text.lines().count() + 1);
    assert_eq!(twice.lines().count(), once.lines().count());
    assert_eq!(stamp::split(&twice).1.unwrap().value, stamp::of(&text, one));
    assert_eq!(stamp::without(&twice).0, text);
}
