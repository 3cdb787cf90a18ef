//! The prediction questions give nothing away: the right choice sits in
//! every place about as often (choices in an order of their own per
//! question, the same in every language), and no choice is more than
//! about twice as long as another; an answer says its choice as shown and
//! as the file writes it.

use agent_loop_core::debugger::Command;
use agent_loop_core::predict::questions;
use agent_loop_core::run::record_scenario;
use agent_loop_core::session::{FixtureDoubles, Options, Session};
use agent_loop_core::vocab::Code;
use serde_json::json;

mod common;
use common::{langs, shipped};

#[test]
fn choices_give_nothing_away_by_place_or_length() {
    // Where the right choice is, over every question of every shipped
    // scenario (three choices or more), and how long the choices are.
    let mut at = [0usize; 3];
    let mut long = Vec::new();
    for scenario in shipped() {
        let trace = record_scenario(&scenario);
        for lang in langs() {
            for ask in questions(&scenario, &trace, lang, Code::Python, &[]) {
                if ask.choices.len() >= 3 && ask.answer < 3 {
                    at[ask.answer] += 1;
                }
                let chars: Vec<usize> = ask.choices.iter().map(|c| c.chars().count()).collect();
                let (short, longest) = (*chars.iter().min().unwrap(), *chars.iter().max().unwrap());
                // (about twice: one or two characters of slack for the shortest)
                if ask.authored && longest > 2 * short + 2 {
                    long.push(format!("{} {} {}: {chars:?}", scenario.id, ask.key, lang.code()));
                }
            }
        }
    }
    let total: usize = at.iter().sum();
    assert!(total > 60, "{at:?}");
    for (place, n) in at.iter().enumerate() {
        assert!(
            *n * 5 >= total,
            "the right choice is choice {place} in only {n} of {total} questions: {at:?}"
        );
        assert!(*n * 2 <= total, "the right choice is choice {place} in {n} of {total} questions: {at:?}");
    }
    assert!(long.is_empty(), "a choice more than twice as long as another:\n{}", long.join("\n"));
}

#[test]
fn in_the_lessons_own_scenarios_the_right_choice_is_spread_too() {
    // What a learner meets first: each lesson's own scenarios.
    for program in agent_loop_core::programs::ALL.iter().filter(|p| !p.scenarios.is_empty()) {
        spread_in(program.scenarios);
    }
}

fn spread_in(own: &[&str]) {
    let mut at = [0usize; 4];
    for scenario in shipped().into_iter().filter(|s| own.contains(&s.id.as_str())) {
        let trace = record_scenario(&scenario);
        for ask in questions(&scenario, &trace, langs()[0], Code::Python, &[])
            .iter()
            .filter(|a| a.choices.len() >= 3)
        {
            at[ask.answer.min(3)] += 1;
        }
    }
    let total: usize = at.iter().sum();
    assert!(total >= 16, "{at:?}");
    for (place, n) in at.iter().take(3).enumerate() {
        assert!(
            *n * 2 <= total && *n * 6 >= total,
            "{own:?}: choice {place} is right in {n} of {total}: {at:?}"
        );
    }
}

#[test]
fn a_question_keeps_its_order_in_every_language() {
    for scenario in shipped() {
        let trace = record_scenario(&scenario);
        let [en, zh] = langs().map(|l| questions(&scenario, &trace, l, Code::Python, &[]));
        for (a, b) in zh.iter().zip(&en) {
            assert_eq!((&a.key, a.answer), (&b.key, b.answer), "{}", scenario.id);
        }
    }
}

fn session(scenario: &str) -> Session {
    let options =
        Options { scenario: scenario.into(), lang: "en".into(), predict: true, ..Options::default() };
    Session::new(Box::new(FixtureDoubles), &options).unwrap()
}

/// The choices of an authored question are shown in an order of the
/// playground's; each answer says, beside the choice as shown, the choice
/// as the file writes it (`written`), so a course site that scores with
/// its own copy of the questions (`answer` counts in the file's order)
/// scores the same. A question the playground asks of itself has none.
#[test]
fn an_answer_says_the_choice_as_the_file_writes_it() {
    let mut moved = 0;
    for id in ["report", "core-cap", "core-four-turns"] {
        let path = format!("{}/fixtures/scenarios/{id}.json", env!("CARGO_MANIFEST_DIR"));
        let file: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut s = session(id);
        s.command(Command::Run);
        while let Some(a) = s.predictions().pending().cloned() {
            for shown in 0..a.choices.len() {
                let mut again = session(id);
                again.command(Command::Run);
                while again.predictions().pending().map(|p| p.key.clone()) != Some(a.key.clone()) {
                    let p = again.predictions().pending().unwrap().answer;
                    again.answer(p).unwrap();
                }
                let detail = again.answer(shown).unwrap();
                match a.key.strip_prefix('q').and_then(|i| i.parse::<usize>().ok()) {
                    Some(i) => {
                        let q = &file["questions"][i];
                        let written =
                            detail["written"].as_u64().expect("an authored question's written choice");
                        assert_eq!(
                            q["choices"][written as usize]["en"],
                            json!(a.choices[shown]),
                            "{id} {}",
                            a.key
                        );
                        assert_eq!(detail["correct"], json!(written == q["answer"]), "{id} {}", a.key);
                        moved += usize::from(written as usize != shown);
                    }
                    None => assert_eq!(detail["written"], json!(null), "{id} {}", a.key),
                }
            }
            s.answer(a.answer).unwrap();
        }
    }
    assert!(moved > 0, "the shown order differs from the written one somewhere");
}
