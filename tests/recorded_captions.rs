//! A recorded program's captions (lesson three's pack): the author's with
//! their values, lists and dicts as Python writes them; else said from the
//! event: a call with its arguments in the def line's order, texts in
//! Python's quotes, a refused request in the API's own words.
//!
//! (No program name is written here: the functions, labels and lines come
//! from the pack.)

#![cfg(not(target_arch = "wasm32"))]

use agent_loop_core::i18n::Lang;
use agent_loop_core::lesson::caption;
use agent_loop_core::session::Session;
use agent_loop_core::trace::Event;
use agent_loop_core::vocab::py_repr;
use serde_json::Value;

#[path = "common/lesson_three.rs"]
mod lesson_three;
use lesson_three::{pack, session_of, PACK};

fn session(lang: &str) -> Session {
    session_of(lang, PACK)
}

/// Each scenario's id and its run in `lang`.
fn runs<'a>(pack: &'a Value, lang: &'a str) -> impl Iterator<Item = (&'a str, &'a Value)> {
    pack["scenarios"].as_array().unwrap().iter().map(move |s| (s["id"].as_str().unwrap(), &s["runs"][lang]))
}

/// The `def` line of `function` in the pack's listing in `lang`.
fn def_line(pack: &Value, lang: &str, function: &str) -> String {
    let text = pack["listings"][lang]["text"].as_str().unwrap();
    text.lines().find(|l| l.trim_start().starts_with(&format!("def {function}("))).unwrap().to_string()
}

#[test]
fn captions_are_the_authors_with_their_values_else_said_from_the_event() {
    let pack = pack();
    let mut python_values = 0;
    for lang in ["zh", "en"] {
        let mut s = session(lang);
        let l = Lang::parse(lang).unwrap();
        for (id, _) in runs(&pack, lang) {
            s.load(id).unwrap();
            let trace = s.replay().trace();
            for (i, step) in trace.steps.iter().enumerate() {
                let (title, body) = caption(l, trace, i);
                assert!(title.contains(step.function.name()), "{id} {lang} {i}: {title}");
                // (a record inside a value is said in the reader's language, as the locals say it)
                assert!(lang == "en" || !body.contains("(the record, n = "), "{id} {lang} {i}: {body}");
                assert!(!body.is_empty(), "{id} {lang} {i}");
                let authored =
                    pack["captions"][step.label][lang].as_str().filter(|_| step.event == Event::Line);
                match (authored, step.event) {
                    (Some(text), _) => {
                        let head = text.split('{').next().unwrap();
                        assert!(body.starts_with(head), "{id} {lang} {i}: {body:?} is {text:?}");
                        for name in text.split('{').skip(1).filter_map(|p| p.split_once('}')).map(|p| p.0) {
                            assert!(
                                !body.contains(&format!("{{{name}}}")),
                                "{id} {lang} {i}: {{{name}}} filled: {body}"
                            );
                            // (a list or a dict as Python writes it, as the locals beside it do)
                            let value = &trace.locals_json(step)[name];
                            if value.is_object() || value.is_array() {
                                let head: String = py_repr(value).chars().take(12).collect();
                                assert!(body.contains(&head), "{id} {lang} {i}: {head} in {body}");
                                python_values += 1;
                            }
                        }
                    }
                    (None, Event::Exception) => {
                        let message = trace.locals_json(step)["raise"].as_str().unwrap().to_string();
                        assert!(body.contains(&message), "{body}");
                    }
                    (None, Event::Call) => {
                        assert!(body.contains(step.function.name()), "{body}");
                        // (a text argument as Python writes it in a call: quoted)
                        let args = trace.locals_json(step);
                        let texts = args.as_object().into_iter().flatten().filter(|(_, v)| v.is_string());
                        for (name, text) in texts.filter(|(_, v)| v.as_str().is_some_and(|t| t.len() < 40)) {
                            assert!(body.contains(&format!("{name}={}", py_repr(text))), "{body}");
                        }
                        // (in the order of the def line's parameters, not the alphabet's)
                        let def = def_line(&pack, lang, step.function.name());
                        let order: Vec<usize> = args
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(name, _)| body.find(&format!("{name}=")).unwrap())
                            .collect();
                        let in_def: Vec<usize> = args
                            .as_object()
                            .into_iter()
                            .flatten()
                            .map(|(name, _)| def.find(name.as_str()).unwrap())
                            .collect();
                        let rank = |v: &[usize]| {
                            let mut r: Vec<usize> = (0..v.len()).collect();
                            r.sort_by_key(|&i| v[i]);
                            r
                        };
                        assert_eq!(rank(&order), rank(&in_def), "{def} / {body}");
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(python_values > 0, "a placeholder holds a list or a dict");
}
