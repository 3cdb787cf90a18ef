//! An author's stand-ins for the SDK's reply objects, as they write them
//! (tests/record/stand-ins): the loop puts `response.content` into the
//! record as it came, and the record shows each block by its fields when
//! the recorder can read them — a `SimpleNamespace`, a dataclass — as the
//! SDK would send its own objects. A block it cannot read is kept as its
//! `repr`, and `record` says so, naming the scenario and the message. A
//! local of such an object is previewed as Python writes it.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{native, node, python_version, Ran};
use serde_json::{json, Value};

const MANIFEST: &str = "tests/record/stand-ins/manifest.json";

/// The record of `scenario`'s English run in a pack.
fn record_of<'p>(pack: &'p Value, scenario: &str) -> &'p Value {
    let scenarios = pack["scenarios"].as_array().expect("the pack's scenarios");
    let found = scenarios.iter().find(|s| s["id"] == scenario).expect("the scenario");
    &found["runs"]["en"]["record"]
}

/// A manifest recorded (a warning is no refusal): what the CLI said and
/// the pack; `None` without python3.
fn recorded_from(manifest: &str) -> Option<(Ran, Value)> {
    if python_version().is_none() {
        eprintln!("no python3: {manifest} is not recorded here");
        return None;
    }
    let ran = native(&["record", manifest], None);
    assert_eq!(ran.code, 0, "{ran:?}");
    let pack: Value = serde_json::from_str(&ran.out).expect("the pack is JSON");
    Some((ran, pack))
}

/// The stand-ins' manifest recorded.
fn recorded() -> Option<(Ran, Value)> {
    recorded_from(MANIFEST)
}

#[test]
fn a_simplenamespace_or_a_dataclass_block_is_recorded_by_its_fields() {
    let Some((ran, pack)) = recorded() else { return };
    let record = record_of(&pack, "fields");
    assert_eq!(
        record[1]["content"],
        json!([{"type": "tool_use", "id": "call_1", "name": "run_main", "input": {}}]),
        "the SimpleNamespace tool request, by its fields"
    );
    assert_eq!(
        record[3]["content"],
        json!([{"type": "text", "text": "It printed ok."}]),
        "the dataclass, by its fields"
    );
    assert!(!ran.err.contains("fields, en"), "nothing to say of the readable stand-ins: {}", ran.err);
    // (the local `block` is written as Python writes it, not as a string)
    let values = &pack["scenarios"][0]["runs"]["en"]["values"];
    let block = json!({"$repr": "namespace(type='tool_use', id='call_1', name='run_main', input={})"});
    assert!(values.as_array().is_some_and(|v| v.contains(&block)), "{values}");
}

/// A dataclass field with no value is left out; a namedtuple is its
/// fields; a block that holds itself or the whole conversation is
/// written the same at every step, so it is not taken for a message
/// changed after it was appended (the recorder refused it, and a
/// conversation held by three blocks took it past its time budget).
#[test]
fn a_field_with_no_value_a_namedtuple_and_a_block_inside_itself_are_recorded() {
    let Some((ran, pack)) = recorded() else { return };
    let text = json!([{"type": "text", "text": "It printed ok."}]);
    assert_eq!(record_of(&pack, "unset")[3]["content"], text, "the unset field left out");
    assert_eq!(record_of(&pack, "named")[3]["content"], text, "the namedtuple by its fields");
    let block =
        json!({"type": "text", "text": "It printed ok.", "history": "(the record)", "me": "\u{2026}"});
    assert_eq!(record_of(&pack, "cycles")[3]["content"], json!([block, block]));
    for id in ["unset", "named", "cycles"] {
        assert!(!ran.err.contains(&format!("{id}, en")), "nothing to say of {id}: {}", ran.err);
    }
}

#[test]
fn a_block_the_recorder_cannot_read_is_kept_as_its_repr_and_said() {
    let Some((ran, pack)) = recorded() else { return };
    let block = &record_of(&pack, "opaque")[3]["content"][0];
    assert!(block.as_str().is_some_and(|s| s.contains("Opaque object")), "{block}");
    let said = |field: &str, id: &str, class: &str, at: &str, line: u32| {
        format!(
            "{MANIFEST}: warning: {field}: {id}, en: message #4 of the record holds an object of class {class} \
             at {at}, which the figure can only show as its repr text: make it JSON data (a dict, a list, a \
             string), a SimpleNamespace or a dataclass, or give its class a model_dump() as the SDK's objects \
             have (line {line})\n"
        )
    };
    assert!(ran.err.contains(&said("scenarios[1]", "opaque", "Opaque", "content[0]", 7)), "{}", ran.err);
    // (a field that raises when read, as the repr; an object in a set, found)
    assert!(ran.err.contains(&said("scenarios[5]", "raising", "Loaded", "content[0]", 11)), "{}", ran.err);
    assert!(ran.err.contains(&said("scenarios[6]", "tags", "Tag", "content[0].tags[0]", 12)), "{}", ran.err);
    // (said once a run: the message stays in the record at every later step)
    assert_eq!(ran.err.matches("warning:").count(), 3, "{}", ran.err);
    if let Some(theirs) = node(&["record", MANIFEST]) {
        assert_eq!(
            (theirs.code, &theirs.out, &theirs.err),
            (ran.code, &ran.out, &ran.err),
            "the Node build says the same"
        );
    }
}

/// A loop that grows its record once by binding the name to a longer
/// list (`messages = messages + […]`), whose blocks hold the list they
/// were sent: every list that has been the record is "(the record)", so
/// a message reads the same when appended and at the end. (The run was
/// refused: the record "went from 2 to 3 messages".)
#[test]
fn a_block_that_holds_a_record_the_loop_has_since_replaced_is_recorded() {
    let Some((_, pack)) = recorded_from("tests/record/stand-ins/rebinds.json") else { return };
    let record = record_of(&pack, "twice");
    assert_eq!(record[1]["content"][0]["history"], "(the record)", "{record}");
    assert_eq!(record[3]["content"][0]["history"], "(the record)", "{record}");
}

/// A program that keeps its conversation on an object (`state.messages`)
/// gives a figure with no message: `record` still writes the pack (a
/// program need not hold a conversation) and says why, with the lists
/// the traced functions held. (It said nothing.)
#[test]
fn a_conversation_kept_on_an_object_is_warned_of() {
    let Some((ran, _)) = recorded_from("tests/record/stand-ins/elsewhere.json") else { return };
    let said = "tests/record/stand-ins/elsewhere.json: warning: record: no traced function had a local list named \
                `messages` at any step of any scenario, so the figure draws no message; if the program keeps a \
                conversation, keep it in a local list (not on an object) and name that list with `record` (they \
                held no list)\n";
    assert!(ran.err.contains(said), "{}", ran.err);
}
