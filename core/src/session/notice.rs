//! What the author should know: a mistake in an attribute or a file, as a
//! word key of the language tables and its values (said in the reader's
//! language by the page, in one `console.warn` by the element).

use crate::i18n::Lang;

/// Why a fetched file could not be read: a reason (`status`, `origin`,
/// `redirect`, `size`, `timeout`, `url`, `network`) and a detail (the
/// server's answer, the limit, …).
pub type Unreadable = (String, String);

/// Something the author should know (an unknown scenario, a breakpoint
/// that cannot be placed): a word key of the language tables and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub key: &'static str,
    pub values: Vec<(&'static str, String)>,
}

/// Notices that are remarks for the author, not problems: said in the
/// console only, never in the learner's notice box.
const REMARKS: [&str; 1] = ["listing_own_words"];

/// Notices that say what is under way, not a mistake: said in the
/// learner's notice box only, never in the console.
const PROGRESS: [&str; 2] = ["notice_pack_waiting", "notice_src_recording"];

/// The notices that say the scenario asked for is not the one shown.
const MISMATCH: [&str; 3] = ["notice_scenario", "notice_scenario_function", "notice_scenario_program"];

/// `id` is shown now (a scenario asked for that arrived late, in a src=
/// file, or whose program's pack has come): the notices saying it is not
/// go, and those of a pack that did not come before or is on its way (what
/// was asked for before this choice is not opened over it). Whether any went.
pub fn forget_mismatch(notices: &mut Vec<Notice>, id: &str) -> bool {
    let before = notices.len();
    let about_id = |n: &Notice| n.values.iter().any(|(k, v)| *k == "value" && v == id);
    let pack = |n: &Notice| n.key == "notice_pack" || n.key == "notice_pack_waiting";
    let gone = |n: &Notice| pack(n) || (MISMATCH.contains(&n.key) && about_id(n));
    notices.retain(|n| !gone(n));
    notices.len() != before
}

/// A program's pack (its file, `file`) is on its way: the element opens
/// without it and opens what was asked for once it is in.
pub fn pack_waiting(file: &str) -> Notice {
    Notice { key: "notice_pack_waiting", values: vec![("value", file.into())] }
}

/// A long `src=` file is being recorded (in the page's worker): the element
/// opens without it, and adds it once its run is in.
pub fn recording(file: &str) -> Notice {
    Notice { key: "notice_src_recording", values: vec![("value", file.into())] }
}

/// `file` is in: the notice that it was being recorded goes. Whether it did.
pub fn arrived(notices: &mut Vec<Notice>, file: &str) -> bool {
    let before = notices.len();
    notices.retain(|n| *n != recording(file));
    notices.len() != before
}

/// A file that could not be fetched, said once: a pack's says its file is
/// no longer on its way.
pub fn unreadable(notices: &mut Vec<Notice>, notice: Notice) {
    let file = notice.values.iter().find(|(k, _)| *k == "value").map(|(_, v)| v.as_str());
    let waiting = file.filter(|_| notice.key == "notice_pack").map(pack_waiting);
    notices.retain(|n| *n != notice && Some(n) != waiting.as_ref());
    notices.push(notice);
}

impl Notice {
    /// A remark for the author (the console), not a problem (the page).
    pub fn is_remark(&self) -> bool {
        REMARKS.contains(&self.key)
    }

    /// What is under way (the page), not a mistake (the console).
    pub fn is_progress(&self) -> bool {
        PROGRESS.contains(&self.key)
    }

    /// The notice in `lang`'s words (a reason given as a word of its own,
    /// `why`, said in them too, with the same values).
    pub fn text(&self, lang: Lang) -> String {
        let said = |(k, v): &(&'static str, String)| match *k {
            "why" => (*k, lang.fill(v, &self.values)),
            // (a value as an author wrote it may be a page long: a notice quotes its start)
            _ => (*k, crate::preview::cut(v, VALUE_CHARS).into_owned()),
        };
        let values: Vec<(&str, String)> = self.values.iter().map(said).collect();
        lang.fill_lists(self.key, &values)
    }
}

/// The characters of a value a notice quotes.
const VALUE_CHARS: usize = 300;

/// A language's table (`www/data/<code>.json`) that could not be fetched:
/// the playground stays in the language it shows; `language` is the
/// language's own name (its button's).
pub fn language_unavailable(file: &str, language: &str, detail: &str) -> Notice {
    let values = vec![("value", file.into()), ("language", language.into()), ("detail", detail.into())];
    Notice { key: "notice_language_pack", values }
}

/// What was said of an attribute's earlier value (`keys`), said no more;
/// whether there was any.
pub fn forget(notices: &mut Vec<Notice>, keys: &[&str]) -> bool {
    let before = notices.len();
    notices.retain(|n| !keys.contains(&n.key));
    notices.len() != before
}

/// The language named `language` is shown: that its table failed to come
/// before is said no more.
pub fn forget_language(notices: &mut Vec<Notice>, language: &str) {
    notices.retain(|n| n.key != "notice_language_pack" || !n.values.contains(&("language", language.into())));
}

/// Why a scenario file could not be read (`status`: the server's answer,
/// `origin`: another site, `redirect`: not followed, `size`, `timeout`,
/// `url`, else the network; `pack`: a program's pack), as a notice.
pub fn unreadable_file(file: &str, why: &str, detail: &str) -> Notice {
    let key = match why {
        "pack" => "notice_pack",
        "status" => "notice_src_status",
        "origin" => "notice_src_origin",
        "redirect" => "notice_src_redirect",
        "size" => "notice_src_size",
        "timeout" => "notice_src_timeout",
        "url" => "notice_src_url",
        "count" => "notice_src_count",
        _ => "notice_src_network",
    };
    Notice { key, values: vec![("value", file.into()), ("detail", detail.into())] }
}
