//! Markup for the page's panels, built as escaped strings.
//!
//! Every piece of data (model text, process output, fixture titles) passes
//! through [`esc`] before it reaches the DOM, so markup in model text is
//! shown, never run. No `style` attributes are emitted: the page runs under
//! a Content-Security-Policy without `unsafe-inline`.

use crate::debugger::Command;
use crate::lesson::Listing;
use crate::trace::Function;

/// The two languages of the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Zh,
    En,
}

impl Lang {
    pub fn parse(s: &str) -> Lang {
        if s.to_ascii_lowercase().starts_with("en") {
            Lang::En
        } else {
            Lang::Zh
        }
    }
    pub fn code(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }
}

/// Escape text for HTML and SVG content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() && c != '\n' && c != '\t' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// At most `n` characters, with an ellipsis when cut.
pub fn clip(text: &str, n: usize) -> String {
    let mut out: String = text.chars().take(n).collect();
    if text.chars().nth(n).is_some() {
        out.push('…');
    }
    out
}

/// Interface words.
pub fn ui(lang: Lang, key: &str) -> &'static str {
    let zh = lang == Lang::Zh;
    match key {
        "run" => {
            if zh {
                "运行"
            } else {
                "Run"
            }
        }
        "debug" => {
            if zh {
                "调试"
            } else {
                "Debug"
            }
        }
        "step" => {
            if zh {
                "单步跳过"
            } else {
                "Step over"
            }
        }
        "stepInto" => {
            if zh {
                "单步进入"
            } else {
                "Step into"
            }
        }
        "stepOut" => {
            if zh {
                "单步跳出"
            } else {
                "Step out"
            }
        }
        "continue" => {
            if zh {
                "继续"
            } else {
                "Continue"
            }
        }
        "back" => {
            if zh {
                "后退一步"
            } else {
                "Step back"
            }
        }
        "reset" => {
            if zh {
                "重置"
            } else {
                "Reset"
            }
        }
        "scenario" => {
            if zh {
                "场景"
            } else {
                "Scenario"
            }
        }
        "language" => {
            if zh {
                "语言"
            } else {
                "Language"
            }
        }
        "reveal" => {
            if zh {
                "显示追踪行"
            } else {
                "Show tracing lines"
            }
        }
        "code" => {
            if zh {
                "源码"
            } else {
                "Source"
            }
        }
        "record" => {
            if zh {
                "消息记录"
            } else {
                "Message record"
            }
        }
        "output" => {
            if zh {
                "输出"
            } else {
                "Output"
            }
        }
        "locals" => {
            if zh {
                "局部变量"
            } else {
                "Locals"
            }
        }
        "timeline" => {
            if zh {
                "时间线"
            } else {
                "Timeline"
            }
        }
        "step_of" => {
            if zh {
                "步"
            } else {
                "step"
            }
        }
        "not_started" => {
            if zh {
                "未开始：点行号设断点，再点“调试”。"
            } else {
                "Not started: click line numbers to set breakpoints, then Debug."
            }
        }
        "no_output" => {
            if zh {
                "（暂无输出）"
            } else {
                "(no output yet)"
            }
        }
        "breakpoint" => {
            if zh {
                "断点：第 {n} 行"
            } else {
                "Breakpoint: line {n}"
            }
        }
        "bad_fixture" => {
            if zh {
                "场景文件有问题"
            } else {
                "A scenario file has problems"
            }
        }
        "ready" => {
            if zh {
                "就绪"
            } else {
                "ready"
            }
        }
        "paused" => {
            if zh {
                "暂停"
            } else {
                "paused"
            }
        }
        "figure_label" => {
            if zh {
                "消息记录图"
            } else {
                "Message record figure"
            }
        }
        "controls" => {
            if zh {
                "调试控制"
            } else {
                "Debugger controls"
            }
        }
        "empty_record" => {
            if zh {
                "（记录为空）"
            } else {
                "(the record is empty)"
            }
        }
        _ => "",
    }
}

/// Button label with its keyboard shortcut.
pub fn command_title(lang: Lang, c: Command) -> String {
    let key = match c {
        Command::Continue => " (F8)",
        Command::Step => " (F10 / →)",
        Command::StepInto => " (F11)",
        Command::StepOut => " (Shift+F11)",
        Command::Back => " (←)",
        _ => "",
    };
    format!("{}{key}", ui(lang, c.name()))
}

/// The control bar.
pub fn controls(lang: Lang, shown: &[Command]) -> String {
    let mut html = String::new();
    for c in Command::ALL {
        if !shown.contains(&c) {
            continue;
        }
        html.push_str(&format!(
            r#"<button type="button" class="alp-btn alp-cmd-{name}" data-command="{name}" title="{title}">{label}</button>"#,
            name = c.name(),
            title = esc(&command_title(lang, c)),
            label = esc(ui(lang, c.name())),
        ));
    }
    html
}

/// The rows of a listing.
pub fn listing_rows(listing: &Listing, lang: Lang) -> String {
    let f = listing.function.name();
    let mut html = String::with_capacity(listing.lines.len() * 120);
    for line in &listing.lines {
        let code = highlight(line.text);
        match line.number {
            Some(n) => html.push_str(&format!(
                r#"<div class="alp-row" data-function="{f}" data-line="{n}"><button type="button" class="alp-bp" data-function="{f}" data-line="{n}" aria-pressed="false" aria-label="{label}">{n}</button><code>{code}</code></div>"#,
                label = esc(&ui(lang, "breakpoint").replace("{n}", &n.to_string())),
            )),
            None => html.push_str(&format!(
                r#"<div class="alp-row alp-instr" aria-hidden="true"><span class="alp-gutter">·</span><code>{code}</code></div>"#
            )),
        }
    }
    html
}

/// A very small Rust highlighter: comments, strings, keywords, macros.
pub fn highlight(line: &str) -> String {
    const KEYWORDS: [&str; 22] = [
        "pub", "fn", "let", "mut", "if", "else", "for", "in", "return", "match", "Some", "None", "Ok", "Err",
        "true", "false", "use", "impl", "struct", "as", "dyn", "const",
    ];
    let mut out = String::with_capacity(line.len() * 2);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            let rest: String = chars[i..].iter().collect();
            out.push_str(&format!(r#"<span class="tk-c">{}</span>"#, esc(&rest)));
            break;
        }
        if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                if chars[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            let s: String = chars[i..(j + 1).min(chars.len())].iter().collect();
            out.push_str(&format!(r#"<span class="tk-s">{}</span>"#, esc(&s)));
            i = j + 1;
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let mut j = i;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let word: String = chars[i..j].iter().collect();
            let class = if KEYWORDS.contains(&word.as_str()) {
                Some("tk-k")
            } else if chars.get(j) == Some(&'!') {
                Some("tk-m")
            } else if word.chars().next().is_some_and(char::is_uppercase) {
                Some("tk-t")
            } else {
                None
            };
            match class {
                Some(class) => out.push_str(&format!(r#"<span class="{class}">{}</span>"#, esc(&word))),
                None => out.push_str(&esc(&word)),
            }
            i = j;
            continue;
        }
        out.push_str(&esc(&c.to_string()));
        i += 1;
    }
    if out.is_empty() {
        out.push(' ');
    }
    out
}

/// Output lines as shown: the emitted English line, glossed in Chinese.
pub fn output_line(lang: Lang, line: &str) -> String {
    if lang == Lang::En {
        return line.to_string();
    }
    if let Some(n) = line.strip_prefix("model call ") {
        return format!("模型调用 {n}");
    }
    if let Some(name) = line.strip_prefix("executing ") {
        return format!("执行工具 {name}");
    }
    if let Some(rest) = line.strip_prefix("tool result: ") {
        return format!("工具结果：{rest}");
    }
    if line == "saved the tool results for the next call" {
        return "保存工具结果，供下一次调用读取".into();
    }
    line.to_string()
}

/// A short zh gloss for the fixed messages the core writes.
pub fn gloss(lang: Lang, text: &str) -> String {
    if lang == Lang::En {
        return text.to_string();
    }
    if text == "unsupported tool or arguments" {
        return "工具或参数不支持".into();
    }
    if let Some(rest) = text.strip_prefix("timed out after ") {
        return format!("运行超时：超过 {}", rest.replace(" s", " 秒"));
    }
    if let Some(rest) = text.strip_prefix("cannot start: ") {
        return format!("无法启动：{rest}");
    }
    if text == "(no output)" {
        return "（无输出）".into();
    }
    text.to_string()
}

/// Names for the stack line: `run_loop › ask_claude`.
pub fn stack(entry: Function, current: Function, depth: u16) -> String {
    if depth == 0 {
        entry.name().to_string()
    } else {
        format!("{} › {}", entry.name(), current.name())
    }
}
