//! The tool results of a turn, paired with the calls they answer and read
//! back into process outcomes (lesson one) or tool outcomes (`tools.rs`),
//! with what the loop cannot replay warned or refused by place.

use super::importer::{Importer, Target};
use super::runs::*;
use super::turns::*;
use agent_loop_core::i18n::Lang;
use agent_loop_core::programs::lesson_one;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

impl Importer {
    /// The user turn answering `calls`: one tool_result per call, paired by id.
    pub(super) fn results(&mut self, turn: &Turn, reply_at: &str, calls: &[Call]) {
        let blocks = turn.content.as_array().map(Vec::as_slice).unwrap_or_default();
        let requested: HashSet<String> = calls.iter().map(|c| c.block["id"].to_string()).collect();
        let mut by_id: HashMap<String, (usize, usize)> = HashMap::new();
        for (j, block) in blocks.iter().enumerate() {
            let at = format!("{}.content[{j}]", turn.at);
            match block_type(block) {
                Some("tool_result") => {
                    let id = block["tool_use_id"].to_string();
                    if !requested.contains(&id) {
                        self.refuse(
                            at,
                            format!("tool_result for id {id}, which {reply_at} does not request"),
                        );
                    } else if by_id.insert(id.clone(), (j, by_id.len())).is_some() {
                        self.refuse(at, format!("a second tool_result for id {id}"));
                    }
                }
                Some(kind) => self.warn(
                    at,
                    format!("{kind} block: dropped (the loop's results message holds only tool results)"),
                ),
                None => self.warn(at, "not a block with a type: dropped"),
            }
        }
        let mut reordered = false; // said once per message
        for (n, call) in calls.iter().enumerate() {
            let id = call.block["id"].to_string();
            let Some(&(j, position)) = by_id.get(&id) else {
                self.refuse(&turn.at, format!("no tool_result for {} (id {id})", call.at));
                continue;
            };
            let at = format!("{}.content[{j}]", turn.at);
            if position != n && !reordered {
                reordered = true;
                self.warn(&at, "out of order: the replay writes the results in the order of the requests");
            }
            if let Some(block) = blocks.get(j) {
                self.result(&at, block, call);
            }
        }
    }

    /// One tool result: read back into a process outcome when `run_main`
    /// ran for it.
    pub(super) fn result(&mut self, at: &str, block: &Value, call: &Call) {
        self.extra_result_keys(at, block);
        if self.target != Target::RunLoop {
            self.tool_result(at, block, call);
            return;
        }
        let text = self.result_text(at, block);
        let is_error = block.get("is_error");
        if !lesson_one::accepts(&call.block) {
            self.other_call(call, &text, is_error);
            return;
        }
        let run = read_run(&text).unwrap_or_else(|| {
            let run = approximate_run(&text, is_error);
            self.warn(
                at,
                format!(
                    "content is not what run_main writes (\"exit_code=N\\n…\", \"timed out after N s\" or \
                     \"cannot start: …\"): replayed as a run that exits with {} and prints this text",
                    if run.is_error { 1 } else { 0 }
                ),
            );
            run
        });
        self.check_flag(at, is_error, run.is_error);
        self.check_timeout(at, run.timeout);
        self.outcomes.push(run.outcome);
    }

    /// A call `run_main` rejects: the replay answers "unsupported tool or
    /// arguments" and runs nothing. Exact when that is what was recorded.
    pub(super) fn other_call(&mut self, call: &Call, text: &str, is_error: Option<&Value>) {
        if is_said("unsupported", text) && is_error == Some(&Value::Bool(true)) {
            return;
        }
        let what = match call.block["name"].as_str() {
            Some("run_main") => "run_main with arguments: the lesson's run_main takes none".to_string(),
            Some(name) => format!("tool {name:?}: the lesson has only run_main"),
            None => "a tool_use without a name: the lesson has only run_main".to_string(),
        };
        self.warn(
            &call.at,
            format!(
                "{what}, so the replay answers {:?} instead of the recorded result",
                Lang::parse("en").map_or("?", |en| en.said_template("unsupported"))
            ),
        );
    }

    pub(super) fn check_flag(&mut self, at: &str, recorded: Option<&Value>, replayed: bool) {
        match recorded {
            Some(Value::Bool(flag)) if *flag == replayed => {}
            None => self
                .warn(format!("{at}.is_error"), format!("missing: the replay writes is_error: {replayed}")),
            Some(other) => self.warn(
                format!("{at}.is_error"),
                format!("{other}, but the replay writes is_error: {replayed} for this content"),
            ),
        }
    }

    /// A scenario has one `timeout_s`: the first timeout read back sets it.
    pub(super) fn check_timeout(&mut self, at: &str, seconds: Option<f64>) {
        let Some(seconds) = seconds else { return };
        match self.timeout.clone() {
            None => self.timeout = Some((seconds, at.to_string())),
            Some((first, first_at)) if first != seconds => self.warn(
                at,
                format!(
                    "timed out after {seconds} s, but {first_at} after {first} s: a scenario has one \
                     timeout_s, so the replay says {first} s"
                ),
            ),
            Some(_) => {}
        }
    }

    /// An API error as the response: the last model call throws it, when
    /// the loop asks again at all.
    pub(super) fn final_error(&mut self, error: Option<String>, turns: &[Turn], kept: usize) {
        let Some(name) = error else { return };
        if kept < turns.len() {
            return; // dropped with everything after the answer
        }
        match turns.last().map(|t| t.role) {
            Some(Role::User) => self.replies.push(json!({ "error": name })),
            _ => self.warn(
                "response",
                "an API error, but the conversation already ends with a reply the loop stops at: dropped",
            ),
        }
    }
}
