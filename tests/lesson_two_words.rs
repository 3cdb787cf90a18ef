//! Lesson two as a learner reads it (issue 44, points 8 and 10): the
//! comparison names places and differences in the learner's words, and
//! the pairs of a reply with two tools are told apart, their results
//! whole where the card is wide.
//!
//! Lessons tested: lesson_two.

use agent_loop_core::programs::lesson_two::{AGENT_LOOP, CAP_AS_BRAKE, KEEP_TEXT_ONLY, STOP_ON_TEXT};
use agent_loop_core::run::record_scenario;
use agent_loop_core::scenario::load_shipped;
use agent_loop_core::session::{FixtureDoubles, Options, Session};

/// Two tools in one reply (issue 44, point 10): the two pairing arcs are
/// told apart by colour (a group of its own each), and a result's first
/// line is whole where the card is wide; a narrow card wraps it, and cuts
/// nothing a wide one shows.
#[test]
fn two_pairs_are_told_apart_and_a_wide_card_cuts_no_result() {
    use agent_loop_core::i18n::Lang;
    use agent_loop_playground::figure::{render_parts, Layout, Moment};
    use agent_loop_playground::markup::esc;
    let scenario = load_shipped().into_iter().find_map(|(_, s)| s.ok().filter(|s| s.id == "core-two-tools"));
    let trace = record_scenario(&scenario.expect("core-two-tools ships"));
    let last = trace.steps.len() - 1;
    let results: Vec<String> = trace
        .record
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].as_str().unwrap_or("").lines().next().unwrap_or("").to_string())
        .collect();
    assert_eq!(results.len(), 2, "two results");
    assert!(results.iter().any(|r| r.chars().count() > 30), "a result longer than the old cut: {results:?}");
    let en = Lang::parse("en").unwrap();
    // The text a card shows, its wrapped lines joined, spaces left out.
    let shown = |svg: &str| -> String {
        svg.split('>').filter_map(|t| t.split('<').next()).collect::<String>().split_whitespace().collect()
    };
    let bare = |r: &String| -> String { esc(r).split_whitespace().collect() };
    for layout in [Layout::WIDE, Layout::NARROW] {
        let [_, record, _] = render_parts(&Moment::at(&trace, last, en, layout));
        assert!(
            record.contains(r#"<g class="alp-pair-0">"#) && record.contains(r#"<g class="alp-pair-1">"#),
            "{record}"
        );
        for r in &results {
            assert!(shown(&record).contains(&bare(r)), "{} wide: the card shows {r:?} whole", layout.w);
        }
    }
}

/// The comparison says places and differences in the learner's words
/// (issue 44, point 8): no trace label (`loop.check_reason`, `ask.return`)
/// and no bare local name beside a word ("the line and reason"), for every
/// lesson-two scenario beside each other loop, at every step, zh and en.
#[test]
fn the_comparison_names_no_trace_label_and_no_bare_local() {
    use agent_loop_playground::explore;
    let label = |s: &str| {
        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')).any(|w| {
            ["loop.", "ask.", "main.", "core.", "tool."].iter().any(|p| w.starts_with(p) && w.len() > p.len())
        })
    };
    let mut checked = 0;
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        if scenario.function != AGENT_LOOP {
            continue;
        }
        for other in [STOP_ON_TEXT, CAP_AS_BRAKE, KEEP_TEXT_ONLY] {
            for lang in ["zh", "en"] {
                let options = Options {
                    scenario: scenario.id.clone(),
                    compare: other.name().into(),
                    lang: lang.into(),
                    ..Options::default()
                };
                let mut s = Session::new(Box::new(FixtureDoubles), &options).expect("a session");
                let Some(c) = s.what_if_state().comparison.clone() else { continue };
                for at in 0..s.replay().trace().steps.len() {
                    s.seek(at);
                    let places = agent_loop_core::step_view::comparison_places(&s).unwrap();
                    let html = explore::compare(&c, &places, s.lang());
                    let text: String =
                        html.split('>').filter_map(|t| t.split('<').next()).collect::<Vec<_>>().join(" ");
                    assert!(
                        !label(&text),
                        "{} beside {} {lang} step {at}: {text}",
                        scenario.id,
                        other.name()
                    );
                    for bare in ["行和reason", "line and reason", "和text", "and text"] {
                        assert!(
                            !text.contains(bare),
                            "{} beside {} {lang}: {text}",
                            scenario.id,
                            other.name()
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

/// A reply's pairs are coloured by their place in that reply: the first
/// request of every reply is drawn in the first colour, whatever came
/// before it in the record (issue 44, point 10).
#[test]
fn each_reply_s_first_pair_has_the_first_colour() {
    use agent_loop_core::i18n::Lang;
    use agent_loop_playground::figure::{render_parts, Layout, Moment};
    let en = Lang::parse("en").unwrap();
    let mut replies_seen = 0;
    for (_, scenario) in load_shipped() {
        let Ok(scenario) = scenario else { continue };
        let trace = record_scenario(&scenario);
        if trace.record.len() > 20 {
            continue; // (a long record folds its middle)
        }
        let answered: Vec<&str> = trace
            .record
            .iter()
            .filter_map(|m| m["content"].as_array())
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str())
            .collect();
        let replies = trace
            .record
            .iter()
            .filter(|m| m["role"] == "assistant")
            .filter(|m| {
                m["content"].as_array().is_some_and(|c| {
                    c.iter().any(|b| {
                        b["type"] == "tool_use" && b["id"].as_str().is_some_and(|id| answered.contains(&id))
                    })
                })
            })
            .count();
        let [_, record, _] = render_parts(&Moment::at(&trace, trace.steps.len() - 1, en, Layout::WIDE));
        assert_eq!(record.matches(r#"<g class="alp-pair-0">"#).count(), replies, "{}: {record}", scenario.id);
        replies_seen += replies;
    }
    assert!(replies_seen > 10, "{replies_seen}");
}
