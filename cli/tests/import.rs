//! `agent-loop-cli import`: a recorded conversation becomes a
//! scenario that `check` accepts and whose replay gives the conversation's
//! messages back EXACTLY — for the samples in tests/import/ (the properties
//! over every conversation the lesson's own loop records are in
//! import_properties.rs). What the loop cannot replay is refused or
//! warned, by its place in the input.

#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_loop_cli::import::{id_from_file_name, import};
use agent_loop_core::run::record_scenario;
use common::*;
use serde_json::{json, Value};

#[test]
fn every_sample_replays_its_messages_exactly() {
    for name in EXACT_SAMPLES {
        let text = sample(name);
        let imported =
            import(&text, name, &format!("{name}.json")).unwrap_or_else(|r| panic!("{name}: {r:?}"));
        assert_eq!(warnings(&imported), Vec::<String>::new(), "{name}");
        let input: Value = serde_json::from_str(&text).unwrap();
        let expected = conversation(&input);
        assert_eq!(replayed(&imported), expected, "{name}: the replay differs");
        assert_eq!(imported.scenario["id"], name);
        assert_eq!(imported.scenario["function"], "run_loop");
        assert_eq!(imported.scenario["expect"]["status"], "answered", "{name}");
        assert_eq!(imported.scenario["expect"]["record"].as_array().map(Vec::len), Some(expected.len()));
    }
}

#[test]
fn the_zero_division_sample_becomes_the_lesson_s_report_scenario() {
    let imported = import(&sample("zero-division"), "zero-division", "zero-division.json").unwrap();
    let s = &imported.scenario;
    assert_eq!(s["title"]["en"], "Imported conversation: zero-division.json");
    assert_eq!(s["title"]["zh"], "导入的对话：zero-division.json");
    assert_eq!(s["question"], "Run main.py and only report the result.");
    assert_eq!(s["max_calls"], 2);
    assert_eq!(s["model"][0]["stop_reason"], "tool_use");
    assert_eq!(s["model"][1]["stop_reason"], "end_turn");
    assert_eq!(s["process"][0]["returncode"], 1);
    assert!(s["process"][0]["stderr"].as_str().unwrap().ends_with("ZeroDivisionError: division by zero\n"));
    let expect = &s["expect"];
    assert_eq!(expect["calls"], 2);
    assert_eq!(
        expect["record"],
        json!(["user:str", "assistant:tool_use", "user:tool_result", "assistant:text"])
    );
    assert_eq!(expect["results"], json!([["exit_code=1", true]]));
    assert_eq!(expect["output_lines"], 5);
    assert!(s["notes"].to_string().contains("reproduces the recorded messages exactly"));
}

#[test]
fn expect_is_what_the_replay_does() {
    for name in EXACT_SAMPLES {
        let imported = import(&sample(name), name, "x.json").unwrap();
        let scenario = checked(&imported);
        let expect = scenario.expect.clone().expect("an expect block");
        let trace = record_scenario(&scenario);
        assert_eq!(expect.status.map(|s| s.as_str()), trace.status(), "{name}");
        assert_eq!(expect.calls, trace.result["calls"].as_i64(), "{name}");
        assert_eq!(expect.output_lines, Some(trace.output.len() as u64), "{name}");
        for label in &expect.hits {
            assert!(trace.steps.iter().any(|s| s.label == label), "{name}: no step {label}");
        }
    }
}

#[test]
fn the_timeout_and_cannot_start_forms_are_read_back() {
    let two = import(&sample("two-rounds"), "two-rounds", "two-rounds.json").unwrap().scenario;
    assert_eq!(two["timeout_s"], 3);
    assert_eq!(
        two["process"],
        json!([{"timeout": true}, {"returncode": 0, "stdout": "ok\n  done\n", "stderr": ""}])
    );
    let parallel = import(&sample("parallel-calls"), "p", "p.json").unwrap().scenario;
    assert_eq!(
        parallel["process"],
        json!([{"returncode": 0, "stdout": "", "stderr": ""},
               {"os_error": "[Errno 2] No such file or directory: 'python'"}])
    );
    let mut odd = base();
    odd["messages"][2]["content"][0]["content"] = json!("timed out after 1.5 s");
    let imported = import_value(&odd).unwrap();
    assert_eq!(warnings(&imported), Vec::<String>::new());
    assert_eq!(imported.scenario["timeout_s"], 1.5);
    assert_eq!(replayed(&imported), conversation(&odd));
}

#[test]
fn a_conversation_ending_with_results_or_an_api_error_still_replays_exactly() {
    let mut waiting = base();
    waiting["messages"].as_array_mut().unwrap().pop();
    let imported = import_value(&waiting).unwrap();
    assert_eq!(warnings(&imported), Vec::<String>::new());
    assert_eq!(imported.scenario["expect"]["status"], "call_limit");
    assert_eq!(replayed(&imported), conversation(&waiting));

    waiting["response"] =
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
    let imported = import_value(&waiting).unwrap();
    assert_eq!(warnings(&imported), Vec::<String>::new());
    assert_eq!(imported.scenario["model"][1], json!({"error": "overloaded_error"}));
    assert_eq!(imported.scenario["expect"]["status"], "model_error");
    assert_eq!(replayed(&imported), conversation(&waiting));
}

#[test]
fn the_response_s_stop_reason_is_kept() {
    let mut input = base();
    let answer = input["messages"].as_array_mut().unwrap().pop().unwrap();
    input["response"] = json!({"id": "msg_1", "type": "message", "role": "assistant",
        "content": answer["content"], "stop_reason": "max_tokens", "usage": {"output_tokens": 1024}});
    let imported = import_value(&input).unwrap();
    assert_eq!(warnings(&imported), Vec::<String>::new());
    assert_eq!(imported.scenario["model"][1]["stop_reason"], "max_tokens");
    assert_eq!(imported.scenario["expect"]["status"], "model_stopped");
    assert_eq!(replayed(&imported), conversation(&input));
}

#[test]
fn a_long_output_cut_in_spaces_is_read_back() {
    let output = format!("{}{}", "x".repeat(1990), " ".repeat(10));
    let mut input = base();
    input["messages"][2]["content"][0]["content"] = json!(format!("exit_code=1\n{output}"));
    let imported = import_value(&input).unwrap();
    assert_eq!(warnings(&imported), Vec::<String>::new());
    assert_eq!(replayed(&imported), conversation(&input));
}

#[test]
fn refusals_name_the_place_and_give_no_scenario() {
    let mut two_users = base();
    two_users["messages"].as_array_mut().unwrap().insert(1, json!({"role": "user", "content": "Please."}));
    let mut starts_with_assistant = base();
    starts_with_assistant["messages"].as_array_mut().unwrap().remove(0);
    let mut two_assistants = base();
    two_assistants["response"] =
        json!({"content": [{"type": "text", "text": "More."}], "stop_reason": "end_turn"});
    let mut no_result = base();
    no_result["messages"][1]["content"] = json!([tool_use("toolu_1"), tool_use("toolu_2")]);
    let mut stray_result = base();
    stray_result["messages"][2]["content"] = json!([tool_result("toolu_9", "exit_code=0\nok", false)]);
    let mut twice = base();
    twice["messages"][2]["content"] = json!([
        tool_result("toolu_1", "exit_code=0\nok", false),
        tool_result("toolu_1", "exit_code=0\nok", false)
    ]);
    let mut only_image = base();
    only_image["messages"][0]["content"] = json!([{"type": "image", "source": {"type": "url", "url": "x"}}]);
    let mut result_first = base();
    result_first["messages"][0]["content"] = json!([tool_result("toolu_0", "exit_code=0\nok", false)]);
    let mut unasked = base();
    unasked["messages"][1]["content"] = json!([{"type": "text", "text": "Done."}]);
    let mut bad_role = base();
    bad_role["messages"][2]["role"] = json!("tool");
    let mut bad_content = base();
    bad_content["messages"][1]["content"] = json!(42);
    let mut bad_response = base();
    bad_response["response"] = json!("ok");
    let cases: Vec<(Value, &str)> = vec![
        (
            two_users,
            "messages[1]: two user messages in a row (messages[0] and messages[1]): the loop sends one",
        ),
        (starts_with_assistant, "messages[0]: the conversation must start with the user's question"),
        (two_assistants, "response: two assistant messages in a row (messages[3] and response)"),
        (no_result, "messages[2]: no tool_result for messages[1].content[1] (id \"toolu_2\")"),
        (
            stray_result,
            "messages[2].content[0]: tool_result for id \"toolu_9\", which messages[1] does not request",
        ),
        (twice, "messages[2].content[1]: a second tool_result for id \"toolu_1\""),
        (only_image, "messages[0]: the conversation must start with a user text"),
        (result_first, "messages[0].content[0]: tool_result in the first message"),
        (unasked, "messages[2].content[0]: tool_result, but messages[1] requests no tool"),
        (bad_role, "messages[2].role: must be \"user\" or \"assistant\""),
        (bad_content, "messages[1].content: must be a string or a list of blocks"),
        (bad_response, "response: must be a Messages API response object"),
        (json!({"model": "m"}), "(file): an object with neither \"messages\" nor \"request\""),
        (json!({"messages": []}), "messages: empty"),
        (json!({"messages": "hi"}), "messages: must be a list"),
        (json!([1, 2]), "[0]: neither a request"),
        (json!({"messages": [7]}), "messages[0]: must be an object"),
    ];
    for (input, expected) in cases {
        let found = refusals(&input);
        assert!(found.iter().any(|r| r.starts_with(expected)), "expected `{expected}` in {found:#?}");
    }
    let found = import("{\"messages\": [", "x", "x.json").unwrap_err();
    assert!(found[0].to_string().starts_with("(file): not valid JSON (EOF"), "{found:?}");
    let found = import(&base().to_string(), "no spaces", "x.json").unwrap_err();
    assert!(found[0].to_string().starts_with("--id: \"no spaces\": use letters"), "{found:?}");
}

/// Logged conversations the replay can only approximate, each with the
/// start of the warning it must give.
fn approximations() -> Vec<(Value, &'static str)> {
    let mut thinking = base();
    thinking["messages"][1]["content"] =
        json!([{"type": "thinking", "thinking": "hmm", "signature": "s"}, tool_use("toolu_1")]);
    let mut other_tool = base();
    other_tool["messages"][1]["content"] =
        json!([{"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"cmd": "ls"}}]);
    let mut arguments = base();
    arguments["messages"][1]["content"][0]["input"] = json!({"file": "main.py"});
    let mut not_the_form = base();
    not_the_form["messages"][2]["content"][0]["content"] = json!("Exit code: 1\nZeroDivisionError");
    let mut no_flag = base();
    no_flag["messages"][2]["content"][0].as_object_mut().unwrap().remove("is_error");
    let mut wrong_flag = base();
    wrong_flag["messages"][2]["content"][0]["is_error"] = json!(false);
    let mut cached = base();
    cached["messages"][2]["content"][0]["cache_control"] = json!({"type": "ephemeral"});
    let mut listed = base();
    listed["messages"][2]["content"][0]["content"] =
        json!([{"type": "text", "text": "exit_code=1\nboom"}, {"type": "image", "source": {}}]);
    let mut blocks_question = base();
    blocks_question["messages"][0]["content"] =
        json!([{"type": "text", "text": "Run main.py."}, {"type": "document", "source": {}}]);
    let mut string_reply = base();
    string_reply["messages"][3]["content"] = json!("It divides by zero.");
    let mut follow_up = base();
    follow_up["messages"].as_array_mut().unwrap().push(json!({"role": "user", "content": "Fix it."}));
    let mut extra_key = base();
    extra_key["messages"][3]["id"] = json!("msg_9");
    let mut text_beside = base();
    text_beside["messages"][2]["content"]
        .as_array_mut()
        .unwrap()
        .push(json!({"type": "text", "text": "Go on."}));
    let mut reordered = base();
    reordered["messages"][1]["content"] = json!([tool_use("toolu_1"), tool_use("toolu_2")]);
    reordered["messages"][2]["content"] = json!([
        tool_result("toolu_2", "exit_code=0\nb", false),
        tool_result("toolu_1", "exit_code=0\na", false)
    ]);
    let mut two_timeouts = base();
    two_timeouts["messages"][1]["content"] = json!([tool_use("toolu_1"), tool_use("toolu_2")]);
    two_timeouts["messages"][2]["content"] = json!([
        tool_result("toolu_1", "timed out after 3 s", true),
        tool_result("toolu_2", "timed out after 5 s", true)
    ]);
    let mut unanswered = base();
    unanswered["messages"].as_array_mut().unwrap().truncate(2);
    let mut no_stop_reason = base();
    let answer = no_stop_reason["messages"].as_array_mut().unwrap().pop().unwrap();
    no_stop_reason["response"] = json!({"content": answer["content"]});
    let mut redacted = base();
    redacted["messages"][3]["content"] =
        json!([{"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "It divides by zero."}]);

    vec![
        (thinking, "messages[1].content[0]: thinking block: dropped (the lesson's loop never sees thinking)"),
        (redacted, "messages[3].content[0]: redacted_thinking block: dropped"),
        (other_tool, "messages[1].content[0]: tool \"bash\": the lesson has only run_main, so the replay answers \"unsupported tool or arguments\""),
        (arguments, "messages[1].content[0]: run_main with arguments"),
        (not_the_form, "messages[2].content[0]: content is not what run_main writes"),
        (no_flag, "messages[2].content[0].is_error: missing: the replay writes is_error: true"),
        (wrong_flag, "messages[2].content[0].is_error: false, but the replay writes is_error: true"),
        (cached, "messages[2].content[0].cache_control: dropped"),
        (listed, "messages[2].content[0].content[1]: image block: dropped"),
        (blocks_question, "messages[0].content: a list of blocks: the loop's question is one string"),
        (string_reply, "messages[3].content: a string: the loop saves a list of blocks"),
        (follow_up, "messages[4]: a new user turn after the answer in messages[3]"),
        (extra_key, "messages[3].id: dropped"),
        (text_beside, "messages[2].content[1]: text block: dropped"),
        (reordered, "messages[2].content[1]: out of order"),
        (two_timeouts, "messages[2].content[1]: timed out after 5 s, but messages[2].content[0] after 3 s"),
        (unanswered, "messages[1]: the conversation ends with tool requests and no results"),
        (no_stop_reason, "response.stop_reason: missing: replayed as \"end_turn\""),
    ]
}

#[test]
fn approximations_are_warned_and_noted_and_still_check() {
    let cases = approximations();
    for (input, expected) in cases {
        let imported = import_value(&input).unwrap_or_else(|r| panic!("`{expected}`: refused {r:?}"));
        let found = warnings(&imported);
        let hit = found.iter().find(|w| w.starts_with(expected));
        let hit = hit.unwrap_or_else(|| panic!("expected `{expected}` in {found:#?}"));
        let notes = imported.scenario["notes"].as_array().unwrap();
        assert!(notes.iter().any(|n| n == hit.as_str()), "`{hit}` is not in the notes {notes:#?}");
        let truncated = found.iter().any(|w| w.contains("a new user turn after the answer"));
        if !truncated && replayed(&imported) != conversation(&input) {
            assert!(
                found.iter().any(|w| w.starts_with("(replay): the replayed record differs")),
                "{found:#?}"
            );
        }
    }
}

#[test]
fn the_approximations_sample_replays_up_to_the_answer() {
    let imported = import(&sample("approximations"), "approx", "approximations.json").unwrap();
    let found = warnings(&imported);
    for expected in [
        "messages[1].content[0]: thinking block: dropped",
        "messages[1].content[1]: tool \"read_file\"",
        "messages[4].content[0].cache_control: dropped",
        "messages[6]: a new user turn after the answer in messages[5]",
        "(replay): the replayed record differs from the conversation first at messages[1]: 3 of 6 messages",
    ] {
        assert!(found.iter().any(|w| w.starts_with(expected)), "expected `{expected}` in {found:#?}");
    }
    assert_eq!(found.len(), 5, "{found:#?}");
    let replay = replayed(&imported);
    assert_eq!(replay[2]["content"][0]["content"], "unsupported tool or arguments");
    assert_eq!(replay[5]["content"][0]["text"], "main.py divides by zero: exit code 1, ZeroDivisionError.");
    assert_eq!(imported.scenario["expect"]["status"], "answered");
}

#[test]
fn ids_come_from_file_names() {
    assert_eq!(id_from_file_name("zero-division.json"), "zero-division");
    assert_eq!(id_from_file_name("log 2025.05.01.json"), "log-2025-05-01");
    assert_eq!(id_from_file_name("日志.json"), "imported");
    assert_eq!(id_from_file_name(".json"), "imported");
    assert_eq!(id_from_file_name(&"a".repeat(100)).len(), 64);
}

/// `sample` as the SDK's Message object (`response.model_dump()`), the way
/// a developer appends it to `messages` or logs it as the response.
fn model_dump(message: &Value, n: usize) -> Value {
    let content = &message["content"];
    let calls = content.as_array().is_some_and(|b| b.iter().any(|b| b["type"] == "tool_use"));
    json!({
        "id": format!("msg_{n}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": content, "stop_reason": if calls { "tool_use" } else { "end_turn" },
        "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 5}
    })
}

/// The same conversation in every shape a developer saves: each imports
/// to the same scenario as the request body, without a warning.
#[test]
fn every_saved_shape_imports_to_the_request_body_s_scenario() {
    for name in EXACT_SAMPLES {
        let body: Value = serde_json::from_str(&sample(name)).unwrap();
        let messages = conversation(&body);
        let plain = import_value(&json!({ "messages": messages })).unwrap();
        let same = |what: &str, text: String| {
            let got = import(&text, "imported", "conversation.json")
                .unwrap_or_else(|r| panic!("{name} as {what}: refused {r:#?}\n{text}"));
            assert_eq!(warnings(&got), Vec::<String>::new(), "{name} as {what}");
            for key in ["question", "model", "process", "expect", "max_calls"] {
                assert_eq!(got.scenario[key], plain.scenario[key], "{name} as {what}: {key}");
            }
            got
        };
        // A list of messages (`json.dump(messages, f)`).
        same("a list of messages", json!(messages).to_string());
        // One call per assistant message: its request holds what came before.
        let replies: Vec<usize> =
            (0..messages.len()).filter(|i| messages[*i]["role"] == "assistant").collect();
        let calls: Vec<(Value, Value)> = replies
            .iter()
            .map(|&i| (json!({"model": "m", "messages": messages[..i]}), model_dump(&messages[i], i)))
            .collect();
        let lines: Vec<String> = calls
            .iter()
            .flat_map(|(request, response)| [request.to_string(), response.to_string()])
            .collect();
        let got = same("JSONL", lines.join("\n") + "\n");
        let last = 2 * calls.len() - 1;
        let read_as = format!(
            "Read as JSONL: the request at line {last} (the last of {}) and the response at line {}.",
            calls.len(),
            last + 1
        );
        assert!(
            got.scenario["notes"].as_array().unwrap().contains(&json!(read_as)),
            "{:#}",
            got.scenario["notes"]
        );
        let pairs: Vec<Value> = calls.iter().map(|(q, a)| json!({"request": q, "response": a})).collect();
        same("{request, response} pairs", json!(pairs).to_string());
        same("one pair", pairs.last().unwrap().to_string());
        let pair_lines: Vec<String> = pairs.iter().map(Value::to_string).collect();
        same("JSONL of pairs", pair_lines.join("\n"));
        // The SDK's Message objects appended to `messages`.
        let dumped: Vec<Value> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| if m["role"] == "assistant" { model_dump(m, i) } else { m.clone() })
            .collect();
        let got = same("messages with model_dump() objects", json!({ "messages": dumped }).to_string());
        assert_eq!(replayed(&got), messages, "{name}: the replay gives the messages back");
    }
}

#[test]
fn a_model_dump_s_stop_reason_is_the_one_replayed() {
    let mut body = base();
    let answer = body["messages"][3].clone();
    body["messages"][3] = model_dump(&answer, 3);
    body["messages"][3]["stop_reason"] = json!("max_tokens");
    body["messages"][3]["content"][0]["citations"] = Value::Null;
    let got = import_value(&body).unwrap();
    assert_eq!(warnings(&got), Vec::<String>::new());
    assert_eq!(got.scenario["model"][1]["stop_reason"], "max_tokens");
    // Its record holds the message the loop saves: role and content (the
    // blocks as they came, `citations: null` too).
    let record = replayed(&got);
    assert_eq!(record[3], json!({"role": "assistant", "content": body["messages"][3]["content"]}));
    // A field no Message object has is still said.
    body["messages"][3]["cache"] = json!(1);
    let got = import_value(&body).unwrap();
    assert!(
        warnings(&got).iter().any(|w| w.starts_with("messages[3].cache: dropped")),
        "{:?}",
        warnings(&got)
    );
}

#[test]
fn a_shape_import_cannot_read_is_refused_with_the_shapes_it_reads() {
    let response = model_dump(&base()["messages"][3], 3);
    let cases = [
        (format!("{response}\n{response}\n"), "line 1: only responses"),
        (
            format!("{}\n{{\"messages\": [\n", json!({"messages": base()["messages"]})),
            "line 2: not valid JSON",
        ),
        ("{\"note\": 1}\n{\"note\": 2}\n".to_string(), "line 1: neither a request"),
        (
            json!([{"request": {"model": "m"}, "response": response}]).to_string(),
            "[0].request.messages: missing",
        ),
        (json!({"request": {}}).to_string(), "request.messages: missing"),
        ("[]".to_string(), "(file): an empty list"),
        ("\"hi\"".to_string(), "(file): neither an object nor a list"),
        ("not json at all".to_string(), "(file): not valid JSON"),
    ];
    for (text, expected) in cases {
        let found: Vec<String> =
            import(&text, "x", "x.json").unwrap_err().iter().map(ToString::to_string).collect();
        assert!(found[0].starts_with(expected), "expected `{expected}`, got {found:#?}");
        assert!(found[0].contains("import reads a request body"), "names the shapes: {found:#?}");
        assert!(
            found[0].contains("json.dump({\"messages\": messages}, f)"),
            "says how to save one: {found:#?}"
        );
    }
}

/// An SDK Message object whose stop_reason says otherwise than the
/// conversation did (its tool requests were answered), or is null.
#[test]
fn a_model_dump_s_stop_reason_that_disagrees_or_is_null_is_warned() {
    let mut body = base();
    body["messages"][1] = model_dump(&base()["messages"][1], 1);
    body["messages"][1]["stop_reason"] = json!("end_turn");
    let got = import_value(&body).unwrap();
    let said = warnings(&got);
    assert!(
        said[0].starts_with("messages[1].stop_reason: \"end_turn\", but its tool requests were answered"),
        "{said:?}"
    );
    assert_eq!(said.len(), 1, "the replay is exact otherwise: {said:?}");
    assert_eq!(replayed(&got), conversation(&base()));
    body["messages"][1]["stop_reason"] = Value::Null;
    let said = warnings(&import_value(&body).unwrap());
    assert_eq!(said, ["messages[1].stop_reason: missing: replayed as \"tool_use\", read from the content"]);
    let mut answer = base();
    answer["response"] = json!({"type": "message", "role": "assistant", "stop_reason": null,
        "content": [{"type": "text", "text": "done"}]});
    answer["messages"].as_array_mut().unwrap().pop();
    let said = warnings(&import_value(&answer).unwrap());
    assert_eq!(said, ["response.stop_reason: missing: replayed as \"end_turn\", read from the content"]);
    let empty = import("  \n", "x", "x.json").unwrap_err();
    assert!(empty[0].to_string().starts_with("(file): empty: import reads"), "{empty:?}");
}
