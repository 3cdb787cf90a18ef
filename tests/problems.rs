//! What an author gets wrong is said in the reader's language: every
//! problem `check` and the page find in a scenario is a word of the
//! language tables, and each such word is met here by a broken scenario
//! that produces it. A zh element says a broken `src=` file and a refused
//! what-if edit in Chinese, with the line of the text.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::i18n::Lang;
use agent_loop_core::scenario::{Problem, Scenario};
use agent_loop_core::session::{Entry, FixtureDoubles, Options, Session};
use serde_json::{json, Value};

fn fixture(id: &str) -> Value {
    let path = format!("{}/fixtures/scenarios/{id}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// `base` with top-level fields set (`null`: the field taken away).
fn with(base: &str, fields: Value) -> Value {
    let mut v = fixture(base);
    for (k, x) in fields.as_object().unwrap() {
        match x {
            Value::Null => drop(v.as_object_mut().unwrap().remove(k)),
            x => v[k] = x.clone(),
        }
    }
    v
}

/// Every problem a scenario's value gives, and its warnings: what `check`
/// says of it (`session::findings`, in one pass).
fn problems_of(v: Value) -> Vec<Problem> {
    let text = v.to_string();
    let mut record =
        |s: &Scenario| agent_loop_core::run::CheckRun::record(s, agent_loop_core::trace::STEP_CAP);
    let found = agent_loop_core::session::findings::of(Scenario::parse(&text), Some(&text), &mut record);
    [found.parsed.err().unwrap_or_default(), found.warnings].concat()
}

fn question(fields: Value) -> Value {
    let mut q = json!({"at": "loop.ask", "text": "?", "choices": ["a", "b"], "answer": 0, "explain": "."});
    for (k, x) in fields.as_object().unwrap() {
        match x {
            Value::Null => drop(q.as_object_mut().unwrap().remove(k)),
            x => q[k] = x.clone(),
        }
    }
    json!([q])
}

/// Broken scenarios, one or more for each word a problem can be said in.
fn broken() -> Vec<Value> {
    let (l1, main, l2) = ("report", "success", "core-weather");
    let expect = |e: Value| with(l1, json!({ "expect": e }));
    let reply = |r: Value| with(l2, json!({ "model": [r] }));
    let tool_use = json!({"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}});
    vec![
        json!([1]),
        with(l1, json!({"id": 5, "title": "x", "question": 5, "max_calls": "x", "timeout_s": -1})),
        with(l1, json!({"id": "a b", "title": {"zh": "", "en": "x"}, "colour": 1})),
        with(l1, json!({"id": null, "function": "nope"})),
        with(l1, json!({"function": null, "title": null})),
        with(main, json!({"call": 5})),
        with(main, json!({"process": null})),
        with(l1, json!({"model": 5})),
        with(l1, json!({"model": null})),
        with(l1, json!({"model": [{"error": ""}]})),
        with(l2, json!({"tools": 5})),
        with(l1, json!({"process": 5})),
        with(
            l1,
            json!({"process": [{"timeout": false}, {"os_error": 1}, {}, {"returncode": 1, "stdout": 2}]}),
        ),
        expect(json!(5)),
        expect(
            json!({"status": "answered", "stop_reason": 5, "output_lines": -1, "hits": ["a"], "misses": ["a"]}),
        ),
        expect(json!({"status": "done", "calls": 0, "record": 5, "results": 5, "hits": 5})),
        expect(json!({"status": 5, "record": [5], "results": [5], "hits": [5]})),
        expect(json!({"error": ""})),
        expect(json!({"status": "answered", "error": "x", "calls": 1})),
        expect(json!({"status": "answered", "stop_reason": "end_turn"})),
        expect(json!({"calls": 1})),
        with(main, json!({"expect": {"results": []}})),
        with(l1, json!({"questions": 5})),
        with(l1, json!({"questions": [5]})),
        with(l1, json!({"questions": question(json!({"at": "", "occurrence": 0, "hue": 1}))})),
        with(l1, json!({"questions": question(json!({"choices": ["a"], "text": null}))})),
        with(l1, json!({"questions": question(json!({"choices": ["a", ""], "answer": 5}))})),
        with(l1, json!({"questions": question(json!({"answer": null}))})),
        with(l1, json!({"questions": question(json!({"at": "loop.nope"}))})),
        with(l1, json!({"questions": question(json!({"occurrence": 99}))})),
        with(l1, json!({"questions": question(json!({"at": "loop.model_stopped"}))})),
        with(l2, json!({"questions": question(json!({"at": "loop.ask"}))})),
        with(l2, json!({"tool_results": {"get_wether": [{"returns": 1}]}})),
        with(l2, json!({"function": "execute_tool", "system": null, "model": null, "max_calls": 0})),
        reply(json!({"stop_reason": 5, "content": 5})),
        reply(
            json!({"stop_reason": "tool_use", "content": [{"type": 5}, {"type": "tool_use", "id": "t", "name": "get_weather", "input": 5}]}),
        ),
        with(l2, json!({"tool_results": {"get_weather": 5}})),
        with(l2, json!({"tool_results": {"get_weather": [{"returns": 1, "raises": "X"}, {}]}})),
        with(l2, json!({"tool_results": 5})),
        reply(
            json!({"stop_reason": "tool-use", "content": [{"type": "tool_use", "name": "get_weather", "input": {}}]}),
        ),
        with(
            l2,
            json!({"model": [{"stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "t2", "name": "book_flight", "input": {}}, tool_use]},
            {"stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}],
            "tool_results": {"get_weather": [{"returns": 1}], "lookup_order": [{"returns": 2}]}}),
        ),
        with(
            l1,
            json!({"model": [{"stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "c1", "name": "run_main", "input": {"x": 1}}]},
            {"stop_reason": "end_turn", "content": [{"type": "text", "text": "ok"}]}]}),
        ),
        with(
            l1,
            json!({"process": [{"returncode": 0}, {"returncode": 0}, {"returncode": 0}, {"returncode": 0}, {"returncode": 0}]}),
        ),
        {
            let mut v = with(l2, json!({"function": "stop_on_text"}));
            v["model"].as_array_mut().unwrap().push(json!({"stop_reason": "end_turn", "content": []}));
            v
        },
    ]
}

/// A `{name}` the values did not fill.
fn unfilled(text: &str) -> bool {
    text.split('{').skip(1).filter_map(|rest| rest.split_once('}')).any(|(inside, _)| {
        !inside.is_empty() && inside.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
    })
}

/// Words only other layers say: `check_said` (the CLI's `import`, English
/// only) and `check_unreadable` (an `addScenario` object that is not JSON,
/// said by the web crate; its browser test is in tests/e2e/src.spec.mjs).
const SAID_ELSEWHERE: [&str; 2] = ["check_said", "check_unreadable"];

#[test]
fn every_problem_is_a_word_of_every_table_and_every_check_word_is_met() {
    let (en, zh) = (Lang::english(), Lang::parse("zh").unwrap());
    let mut met: Vec<&str> = Vec::new();
    // (not JSON; ended early; valid JSON nested deeper than 127 levels)
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    for text in ["[", "{]", deep.as_str()] {
        let problems = Scenario::parse(text).unwrap_err();
        met.extend(problems.iter().map(|p| p.say.key));
    }
    for v in broken() {
        let shown = v.to_string();
        let problems = problems_of(v);
        assert!(!problems.is_empty(), "no problem in {shown}");
        for p in problems {
            for lang in [en, zh] {
                assert!(lang.keys().contains(&p.say.key), "{}: no word {:?}", lang.code(), p.say.key);
            }
            let (said_en, said_zh) = (p.text(en), p.text(zh));
            assert_ne!(said_en, said_zh, "the same in both languages: {said_en}");
            assert!(
                said_zh.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "not Chinese: {said_zh}"
            );
            for said in [&said_en, &said_zh] {
                assert!(!unfilled(said), "a placeholder left: {said}");
            }
            met.push(p.say.key);
        }
    }
    let unmet: Vec<&str> = (en.keys().into_iter())
        .filter(|k| ["check_", "json_"].iter().any(|p| k.starts_with(p)))
        .filter(|k| !met.contains(k) && !SAID_ELSEWHERE.contains(k))
        .collect();
    assert!(unmet.is_empty(), "words no broken scenario here produces: {unmet:?}");
}

#[test]
fn a_broken_file_names_the_line_of_its_field_in_the_reader_s_words() {
    let text = "{\n  \"id\": \"x\",\n  \"function\": \"run_loop\",\n  \"title\": {\"zh\": \"x\", \"en\": \"x\"},\n  \"max_calls\": \"four\",\n  \"model\": []\n}";
    let problems = Scenario::parse(text).unwrap_err();
    assert_eq!(problems[0].field, "max_calls");
    assert_eq!(problems[0].line, Some(5));
    let entries = [Entry { file: "x.json".into(), parsed: Err(problems), warnings: Vec::new() }];
    let zh = agent_loop_playground::view::problems(&entries, &[], Lang::parse("zh").unwrap());
    assert!(zh.contains("第 5 行，max_calls：必须是整数"), "{zh}");
    let en = agent_loop_playground::view::problems(&entries, &[], Lang::english());
    assert!(en.contains("line 5, max_calls: must be an integer"), "{en}");
    // A missing field has no line; the file's own problems none either.
    let missing = Scenario::parse("{\n\"function\": \"run_loop\"\n}").unwrap_err();
    assert!(missing.iter().all(|p| p.line.is_none()), "{missing:?}");
    assert_eq!(Scenario::parse("{\n\n]").unwrap_err()[0].line, None);
}

#[test]
fn an_edit_the_format_refuses_is_said_in_chinese_at_its_field_and_line() {
    let options = Options { scenario: "report".into(), lang: "zh".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let process = "[\n  {\"returncode\": 0},\n  {\n    \"returncode\": \"one\"\n  }\n]";
    let api = s.what_if_texts(&[("process", process)], None).unwrap_err();
    // The API says it in English, the setup panel in the reader's words.
    assert_eq!(api[0].to_string(), "process[1].returncode: must be an integer");
    let shown = agent_loop_core::step_view::edit_problems(&s);
    assert_eq!(shown, ["第 4 行，process[1].returncode：必须是整数"]);
}

/// An editor's text that is not JSON says its line once: the place, then
/// what the parser met there ("第 1 行，model：第 1 行：…" said it twice,
/// issue 44, point 8).
#[test]
fn an_editor_s_text_that_is_not_json_says_its_line_once() {
    for (code, line) in [("zh", "第 1 行"), ("en", "line 1")] {
        let options = Options { scenario: "report".into(), lang: code.into(), ..Options::default() };
        let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        s.what_if_texts(&[("model", "[{")], None).unwrap_err();
        let shown = agent_loop_core::step_view::edit_problems(&s);
        assert_eq!(shown.len(), 1, "{shown:?}");
        assert_eq!(shown[0].matches(line).count(), 1, "{code}: {}", shown[0]);
        assert!(shown[0].contains("model"), "{code}: the editor is named: {}", shown[0]);
    }
}

#[test]
fn every_editor_s_problems_are_said_at_once() {
    let options = Options { scenario: "report".into(), lang: "en".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let problems = s.what_if_texts(&[("model", "[\n  5\n]"), ("process", "[]")], None).unwrap_err();
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["model[0]", "process"]);
    let shown = agent_loop_core::step_view::edit_problems(&s);
    assert_eq!(shown[0], "line 2, model[0]: must be an object (a reply)");
    // A reply of the wrong type beside a process the format refuses.
    let replies = "[\n  {\"stop_reason\": 7, \"content\": []}\n]";
    let problems =
        s.what_if_texts(&[("model", replies), ("process", "{\"returncode\": \"one\"}")], None).unwrap_err();
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["model[0].stop_reason", "process.returncode"]);
    // Text that is not JSON beside a misspelt outcome field.
    let problems = s.what_if_texts(&[("model", "[{"), ("process", "{\"stdot\": \"x\"}")], None).unwrap_err();
    let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["model", "process.stdot"]);
}

#[test]
fn a_valid_file_s_near_misses_are_said_in_the_page_at_their_lines() {
    let options = Options { scenario: "report".into(), lang: "zh".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let mut v = fixture("report");
    v["id"] = json!("near");
    v["model"][0]["stop_reason"] = json!("tool-use");
    // (the run takes another road: the lesson's questions and expectations are not for it)
    v.as_object_mut().unwrap().retain(|k, _| k != "questions" && k != "expect");
    let text = serde_json::to_string_pretty(&v).unwrap();
    let line = text.lines().position(|l| l.contains("\"tool-use\"")).unwrap() + 1;
    s.add_file("lessons/near.json", Scenario::parse(&text), Some(&text)).unwrap();
    let entry = s.catalogue().entries().iter().find(|e| e.file == "lessons/near.json").unwrap();
    assert_eq!(entry.warnings.len(), 1, "{:?}", entry.warnings);
    assert_eq!(entry.warnings[0].line, Some(line));
    let zh = agent_loop_playground::view::problems(s.catalogue().entries(), &[], Lang::parse("zh").unwrap());
    assert!(
        zh.contains(&format!(
            "第 {line} 行，model[0].stop_reason：&quot;tool-use&quot; 不是 API 会返回的 stop_reason"
        )),
        "{zh}"
    );
    // A shipped scenario that misses on purpose says it in its expect.warnings: no warning.
    let on_purpose = fixture("empty-id").to_string();
    let mut v: Value = serde_json::from_str(&on_purpose).unwrap();
    v["id"] = json!("on-purpose");
    let text = v.to_string();
    s.add_file("lessons/on-purpose.json", Scenario::parse(&text), Some(&text)).unwrap();
    let entry = s.catalogue().entries().iter().find(|e| e.file == "lessons/on-purpose.json").unwrap();
    assert!(entry.warnings.is_empty(), "{:?}", entry.warnings);
}

#[test]
fn a_file_s_problems_from_before_go_when_it_is_given_again() {
    let options = Options { scenario: "report".into(), lang: "zh".into(), ..Options::default() };
    let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
    let added = agent_loop_core::session::ADDED;
    let broken = "{\n\"id\": \"x\",\n\"function\": \"run_loop\",\n\"max_calls\": \"four\"\n}";
    s.add_file(added, Scenario::parse(broken), None).unwrap_err();
    s.add_file(added, Scenario::parse(broken), None).unwrap_err();
    let broken_ones = |s: &Session| s.catalogue().entries().iter().filter(|e| e.parsed.is_err()).count();
    assert_eq!(broken_ones(&s), 1, "one group per file, not one per call");
    let shown = s.scenario().unwrap().id.clone();
    let mut good = fixture("report");
    good["id"] = json!("x");
    s.add_file(added, Ok(Scenario::from_value(good).unwrap()), None).unwrap();
    assert_eq!(broken_ones(&s), 0, "the valid version clears the notice");
    assert_eq!(s.scenario().unwrap().id, shown, "the scenario on screen stays");
    let zh = agent_loop_playground::view::problems(s.catalogue().entries(), &[], Lang::parse("zh").unwrap());
    assert_eq!(zh, "");
    // The file as a whole and addScenario's file are said in the reader's words.
    s.add_file(added, Scenario::parse("{\n  \"id\": "), None).unwrap_err();
    let zh = agent_loop_playground::view::problems(s.catalogue().entries(), &[], Lang::parse("zh").unwrap());
    assert!(zh.contains("用 addScenario 添加的场景") && zh.contains("（整个文件）"), "{zh}");
    assert!(!zh.contains("(file)") && !zh.contains("(added scenario)"), "{zh}");
}

/// The markup's text: tags out, entities back.
fn text_of(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                out.push('\n');
            }
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    let entities = [("&quot;", "\""), ("&#39;", "'"), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&")];
    entities.iter().fold(out, |text, (from, to)| text.replace(from, to))
}

/// The page says a `src=` file as `check` does (issue 44, "what the author
/// saw"): every problem at its line, those of `questions` too, and the
/// warnings of a file that also has problems. The cases and what `check`
/// says of them are cli/tests/bad-fixtures/once/ (cli/tests/check_once.rs).
#[test]
fn the_page_says_every_problem_and_warning_of_a_file_at_its_line_as_check_does() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/cli/tests/bad-fixtures/once");
    let mut cases: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    cases.retain(|p| p.extension().is_some_and(|x| x == "json"));
    assert!(cases.len() >= 4);
    let options = Options { scenario: "report".into(), lang: "en".into(), ..Options::default() };
    let mut missing = Vec::new();
    for case in cases {
        let mut s = Session::new(Box::new(FixtureDoubles), &options).unwrap();
        let text = std::fs::read_to_string(&case).unwrap();
        let file = format!("lessons/{}", case.file_name().unwrap().to_str().unwrap());
        let added = s.add_file(&file, Scenario::parse(&text), Some(&text));
        if added.is_ok() {
            missing.push(format!("{file}: taken as a valid scenario"));
        }
        let shown =
            text_of(&agent_loop_playground::view::problems(s.catalogue().entries(), &[], Lang::english()));
        let (bad, near) = shown.split_once(Lang::english().word("near_fixture")).unwrap_or((&shown, ""));
        for line in std::fs::read_to_string(case.with_extension("txt")).unwrap().lines() {
            // `field: why (line N)` as check says it, `line N, field: why` as the page does
            let (warning, said) = match line.strip_prefix("warning: ") {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let said = match said.rsplit_once(" (line ") {
                Some((said, n)) => format!("line {}, {said}", n.trim_end_matches(')')),
                None => said.to_string(),
            };
            if !(if warning { near } else { bad }).lines().any(|l| l == said) {
                missing.push(format!("{file}: {said}"));
            }
        }
    }
    assert!(missing.is_empty(), "not in the page's notice:\n{}", missing.join("\n"));
}

/// A problem is said in English in the console of any page, whatever
/// language it shows: the module keeps of a language not arrived only its
/// `check_*` words (core/build.rs), so a problem said in another word was
/// `(file): ?` there (issue 44: a file that is not JSON).
#[test]
fn every_problem_is_said_in_a_word_every_page_has_in_english() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let mut problems: Vec<Problem> = Vec::new();
    for text in ["[", "{]", "{\n  \"id\": \"x\" \"function\": 1}", deep.as_str()] {
        problems.extend(Scenario::parse(text).unwrap_err());
    }
    problems.extend(broken().into_iter().flat_map(problems_of));
    let other: Vec<&str> = problems.iter().map(|p| p.say.key).filter(|k| !k.starts_with("check_")).collect();
    assert!(other.is_empty(), "said in words a page may not have in English: {other:?}");
}
