//! A language whose table is a pack (`www/data/<code>.json`: the page's
//! module holds the default language's only): known by its button until
//! it arrives, refused until then, and complete once it has. In a test
//! binary of its own: the language it adds would be one more for every
//! other test.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::i18n::{self, Lang};
use agent_loop_core::pack;
use agent_loop_core::programs;
use agent_loop_core::session::{FixtureDoubles, Options, Session};

#[test]
fn a_language_not_arrived_is_refused_until_its_pack_comes_and_keeps_what_came_before() {
    let qq = i18n::expect("qq", "Qq-speak", "qq-QQ", "qq_pack");
    assert_eq!((qq.waiting(), qq.name(), qq.html_lang()), (Some("qq_pack"), "Qq-speak", "qq-QQ"));
    assert!(Lang::all().contains(&qq), "its button is there before its table");
    assert_eq!(Lang::english().code(), "en");
    // Shown in it: refused, naming the pack, both at the start and later.
    let opts = |lang: &str| Options { scenario: "report".into(), lang: lang.into(), ..Options::default() };
    let refused = Session::new(Box::new(FixtureDoubles), &opts("qq")).err().unwrap();
    assert_eq!(refused, pack::Refusal::PackNeeded("qq_pack".into()));
    let mut s = Session::new(Box::new(FixtureDoubles), &opts("zh")).unwrap();
    let _ = s.take_changes();
    assert_eq!(s.set_lang(qq).unwrap_err().pack(), Some("qq_pack"));
    assert_eq!((s.lang().code(), s.take_changes().lang), ("zh", false), "nothing changed");
    // A program's pack that comes first brings its captions in it too; the
    // table that comes after keeps them.
    i18n::add_captions("qq", &serde_json::json!({ "core.ask": { "title": "T2", "body": "B2" } })).unwrap();
    let mut table: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/i18n/en.json")).unwrap(),
    )
    .unwrap();
    table["code"] = "qq".into();
    table["name"] = "Qq-speak".into();
    // (as in the page's: lesson two's captions are in lesson two's pack)
    table["captions"]
        .as_object_mut()
        .unwrap()
        .retain(|stage, _| !programs::lesson_two::PROGRAM.owns_caption(stage));
    table["words"]["step"] = "Qq-step".into();
    let file = serde_json::json!({ "pack": "qq_pack", "texts": {}, "language": table }).to_string();
    assert_eq!(programs::add_pack("qq_pack", &file).as_deref(), Ok("qq_pack"));
    let qq = Lang::parse("qq").unwrap();
    assert_eq!(qq.waiting(), None);
    assert_eq!((qq.word("step"), qq.name()), ("Qq-step", "Qq-speak"));
    assert_eq!(qq.caption("core.ask"), Some(("T2", "B2")), "lesson two's caption kept");
    assert!(qq.caption("loop.ask").is_some());
    s.set_lang(qq).unwrap();
    assert_eq!((s.lang().code(), s.take_changes().lang), ("qq", true));
}

#[test]
fn a_language_that_could_not_come_is_said_once_and_no_more_once_it_is_shown() {
    use agent_loop_core::session::notice;
    let opts = Options { scenario: "report".into(), lang: "zh".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &opts).unwrap();
    let before = s.notices().len();
    for _ in 0..3 {
        s.file_notice(notice::language_unavailable("en.json", "English", "404 Not Found"));
    }
    assert_eq!(s.notices().len(), before + 1, "pressed three times, said once");
    let zh = Lang::parse("zh").unwrap();
    let said = s.notices().last().unwrap().text(zh);
    assert!(said.contains("en.json") && said.contains("English") && said.contains("404"), "{said}");
    assert!(said.contains("中文"), "it says the playground stays in Chinese: {said}");
    s.set_lang(zh).unwrap();
    assert_eq!(s.notices().len(), before + 1, "still not in English: still said");
    s.set_lang(Lang::parse("en").unwrap()).unwrap();
    assert_eq!(s.notices().len(), before, "English is shown: said no more");
}
