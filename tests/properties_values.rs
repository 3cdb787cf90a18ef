//! Property tests (proptest) of the small rules the page relies on: the
//! one preview rule (bounded, valid JSON), `Decimal` (reads like Rust's own
//! float display), the small insertion sort (sorts like the standard
//! library's), and a request's preview (the same text as the request as
//! JSON).

#![cfg(not(target_arch = "wasm32"))]

use proptest::prelude::*;
use serde_json::{json, Value};

mod common;
#[path = "common/strategies.rs"]
mod strategies;
use strategies::*;

proptest! {
    #[test]
    fn a_text_cut_for_a_caption_stays_inside_python_s_quotes(text in "[a-z'\"\\\n中 ]{0,30}", chars in 0usize..25) {
        use agent_loop_core::vocab::{py_repr, py_repr_cut};
        let cut = py_repr_cut(&text, chars);
        let whole = py_repr(&Value::String(text.clone()));
        if text.chars().count() <= chars {
            prop_assert_eq!(cut, whole);
        } else {
            // the first characters as Python writes them, then … and the closing quote
            let first: String = text.chars().take(chars).collect();
            let head = py_repr(&Value::String(first));
            let quote = head.chars().last().unwrap();
            prop_assert_eq!(cut.chars().next(), Some(quote));
            prop_assert_eq!(cut, format!("{}…{quote}", &head[..head.len() - 1]));
        }
    }

    #[test]
    fn pretty_chars_counts_what_serde_json_writes(v in any_json(), deep in 0usize..4) {
        // (the editors count a huge field without writing it out)
        let mut v = v;
        for i in 0..deep {
            v = json!({"k\"\u{1}ü": [v.clone(), i, "\t\n\\"], "e": {}, "l": []});
        }
        let written = serde_json::to_string_pretty(&v).unwrap().chars().count();
        prop_assert_eq!(agent_loop_playground::explore::pretty_chars(&v, 0), written);
    }


    #[test]
    fn previews_are_bounded_and_valid_json(v in any_json(), long in 0usize..3, deep in 0usize..40) {
        use agent_loop_core::trace::{preview, PREVIEW_CHARS, PREVIEW_DEPTH, PREVIEW_ITEMS};
        // Grow the value past the preview limits: long strings, long lists, deep nesting.
        let mut v = v;
        if long > 0 {
            v = json!({"s": "ü".repeat(450 * long), "list": vec![v; 60 * long]});
        }
        for _ in 0..deep {
            v = json!([v]);
        }
        fn check(p: &Value, depth: usize) -> Result<(), TestCaseError> {
            prop_assert!(depth <= PREVIEW_DEPTH, "nesting {} past the limit", depth);
            match p {
                Value::String(s) => {
                    let n = s.chars().count();
                    prop_assert!(n <= PREVIEW_CHARS + 24, "a string of {} chars", n);
                }
                Value::Array(items) => {
                    prop_assert!(items.len() <= PREVIEW_ITEMS + 1, "a list of {} items", items.len());
                    for x in items {
                        check(x, depth + 1)?;
                    }
                }
                Value::Object(map) => {
                    for x in map.values() {
                        check(x, depth + 1)?;
                    }
                }
                _ => {}
            }
            Ok(())
        }
        let shown = preview(&v);
        check(&shown, 0)?;
        // Short, shallow values are shown exactly as they are.
        if long == 0 && deep == 0 && v.to_string().len() < PREVIEW_CHARS {
            let depth_ok = !v.to_string().contains(&"[".repeat(PREVIEW_DEPTH));
            if depth_ok {
                let mut written = Vec::new();
                agent_loop_core::trace::Local::write(&v, &mut written);
                prop_assert_eq!(String::from_utf8(written).unwrap(), v.to_string());
            }
        }
        // A list of locals is previewed item by item.
        let list: Vec<&Value> = vec![&v, &v];
        prop_assert_eq!(preview(&list).to_string(), json!([shown.clone(), shown]).to_string());
    }

    #[test]
    fn a_decimal_reads_like_rusts_own_float_display(bits in any::<u64>(), small in -1.0e6f64..1.0e6, step in 0u32..4000) {
        use agent_loop_core::vocab::Decimal;
        // Any bit pattern (NaN, infinities, subnormals, huge, tiny), plain
        // numbers, and the halves and tenths a drawing uses.
        let edges = [0.0, -0.0, 1e21, 1e-7, 1.5e-7, 5e-324, f64::MAX, f64::MIN_POSITIVE, 0.1 + 0.2, 1.5, 3.0, 1e15, 1e16, 123456789012345680.0, 0.000123, 999999999999999.9];
        for x in edges.into_iter().chain([f64::from_bits(bits), small, f64::from(step) / 2.0, f64::from(step) / 10.0, -f64::from(step) * 0.3]) {
            let (mine, rusts) = (Decimal(x).to_string(), format!("{x}"));
            // The same text wherever the shortest form has up to 15 digits
            // (then only one such form exists); past that both are shortest
            // forms that read back as x, and may differ in the last digit.
            let significant = rusts.trim_start_matches('-').replace('.', "").trim_matches('0').len();
            if significant <= 15 || !x.is_finite() {
                prop_assert_eq!(&mine, &rusts, "{:?}", x);
            } else {
                prop_assert_eq!(mine.len(), rusts.len(), "{:?}: {} vs {}", x, mine, rusts);
                prop_assert_eq!(mine.parse::<f64>().ok(), Some(x), "{:?}: {}", x, mine);
            }
        }
    }

    #[test]
    fn the_small_sorts_sort_like_the_standard_library(items in proptest::collection::vec((0u8..6, any::<u16>()), 0..80)) {
        use agent_loop_core::vocab::{sort_small, sort_small_by_key};
        let mut mine = items.clone();
        let mut theirs = items.clone();
        sort_small(&mut mine);
        theirs.sort();
        prop_assert_eq!(&mine, &theirs);
        // By a key, stably: equal keys keep their order.
        let (mut mine, mut theirs) = (items.clone(), items);
        sort_small_by_key(&mut mine, |x| x.0);
        theirs.sort_by_key(|x| x.0);
        prop_assert_eq!(mine, theirs);
    }

    #[test]
    fn a_request_is_previewed_like_the_same_request_as_json(
        system in "[a-zé\"\\\\ \n<>]{0,900}", model in "[a-z-]{0,20}", tools in any_json(),
        n in 0usize..5000, max_tokens in 0u32..100_000,
    ) {
        use agent_loop_core::protocol::Request;
        use agent_loop_core::preview::record_ref;
        use agent_loop_core::trace::Local;
        // The recorder writes a request straight from its fields; it must
        // read exactly as the object it stands for would.
        let messages = vec![Value::Null; n];
        let request = Request { model: &model, system: &system, messages: &messages, tools: &tools, max_tokens };
        let as_json = json!({"model": model, "system": system, "messages": record_ref(n), "tools": tools, "max_tokens": max_tokens});
        let (mut direct, mut reference) = (Vec::new(), Vec::new());
        request.write(&mut direct);
        as_json.write(&mut reference);
        prop_assert_eq!(String::from_utf8(direct).unwrap(), String::from_utf8(reference).unwrap());
    }
}

/// A value the harness could only write as its `repr` (`{"$repr": …}`, a
/// `SimpleNamespace` in a list of blocks) is written as Python wrote it,
/// at any depth: not as a dict with a `$repr` key; and a dict that is one
/// is not taken for a repr.
#[test]
fn a_repr_preview_is_written_as_python_wrote_it_at_any_depth() {
    use agent_loop_core::vocab::py_repr;
    let value = serde_json::json!([
        {"$repr": "namespace(type='text', text='hi')"},
        {"call": {"$repr": "<function <lambda>>"}, "$repr": "not alone"},
    ]);
    assert_eq!(
        py_repr(&value),
        "[namespace(type='text', text='hi'), {'$repr': 'not alone', 'call': <function <lambda>>}]"
    );
    // A program's own dict whose one key is `$repr` is previewed as the
    // dict it is, not read as a repr (the harness does the same: the
    // record tests hold it to this preview).
    let own = agent_loop_core::preview::preview(&serde_json::json!({"$repr": "namespace(x=1)"}));
    assert_eq!(py_repr(&own), "{'$repr': 'namespace(x=1)'}");
}
