//! An author's own listings (`listing-src`, `listing-src-zh`,
//! `listing-src-en`): each checked — its marks, then its stamp, the proof
//! that CPython ran it (`lesson::stamp`) — and registered, or its problems
//! as notices (the built-in listing stays in use), and which one the page
//! shows in a language.

use super::notice::{unreadable_file, Notice};
use super::options::ListingFile;
use crate::i18n::Lang;
use crate::lesson::{self, Finding};
use crate::pack::Refusal;
use crate::vocab::Code;

/// The author's listings that passed, by language (none: any), and what
/// the author should know about them. `lang` is the element's language,
/// the one a listing for any language is read in. A listing of a program
/// whose texts have not arrived is checked once they have: refused with
/// `crate::pack::needed` until then.
pub type Opened = (Vec<(Option<Lang>, Code)>, Vec<Notice>);
pub fn open(files: &[ListingFile], lang: Lang) -> Result<Opened, Refusal> {
    let program = |text: &str| lesson::listing_program(text);
    let waiting = files.iter().filter_map(|(_, _, text)| text.as_ref().ok()).map(|t| program(t));
    if let Some(pack) = waiting.filter(|p| !p.loaded()).find_map(|p| p.pack) {
        return Err(crate::pack::needed(pack));
    }
    let (mut shown, mut notices) = (Vec::new(), Vec::new());
    for (file, for_lang, text) in files {
        let for_lang = for_lang.as_deref().and_then(Lang::parse);
        let text = match text {
            Ok(text) => text,
            Err((why, detail)) => {
                notices.push(unreadable_file(file, why, detail));
                continue;
            }
        };
        // (the stamp line blanked: no line of the listing moves)
        let (blanked, _) = lesson::stamp::split(text);
        let checked = lesson::register_listing(file, &blanked, for_lang.unwrap_or(lang)).and_then(|passed| {
            match lesson::stamp::problem(program(text), file, text) {
                Some(unproved) => Err(vec![unproved]),
                None => Ok(passed),
            }
        });
        match checked {
            Ok((code, remarks)) => {
                shown.push((for_lang, code));
                notices.extend(remarks.into_iter().map(notice));
            }
            Err(problems) => {
                notices.extend(problems.into_iter().map(notice));
                notices.push(Notice { key: "listing_not_used", values: vec![("file", file.clone())] });
            }
        }
    }
    Ok((shown, notices))
}

fn notice(finding: Finding) -> Notice {
    Notice { key: finding.key, values: finding.values }
}

/// The listing to show for `wanted` in `lang`: the Rust, or as the
/// Python the author's for that language, else the author's for any, else
/// the program's.
pub fn shown(wanted: Code, authored: &[(Option<Lang>, Code)], lang: Lang) -> Code {
    if wanted == Code::Rust {
        return Code::Rust;
    }
    let own = authored
        .iter()
        .find(|(l, _)| *l == Some(lang))
        .or_else(|| authored.iter().find(|(l, _)| l.is_none()));
    own.map_or(Code::Python, |(_, code)| *code)
}
