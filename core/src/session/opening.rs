//! What a session opens with, read from its options: the catalogue (a
//! recorded program's scenarios the ones offered, when `program-src` gave
//! one), the notices in the order the author meets them, the author's
//! listings and the listing shown.

use super::catalogue::{Catalogue, Check};
use super::listings;
use super::notice::Notice;
use super::options::{Options, Settings};
use super::recorded;
use crate::i18n::Lang;
use crate::pack::Refusal;
use crate::run::Checked;
use crate::vocab::Code;

/// The parts a session starts from.
pub struct Start {
    pub catalogue: Catalogue,
    pub notices: Vec<Notice>,
    /// The author's own listings, by language (none: any).
    pub authored: Vec<(Option<Lang>, Code)>,
    /// The listing shown (a recorded program's: its Python, the one that ran).
    pub code: Code,
    /// The run the checks of the author's file shown first recorded.
    pub checked: Option<Checked>,
}

/// Open a session's parts (refused while a pack they need has not arrived).
pub fn start(options: &Options, settings: &Settings, check: Check) -> Result<Start, Refusal> {
    let program = recorded::open(&options.program_src);
    let scope = program.scope.unwrap_or(settings.scope);
    let wanted = settings.scenario.as_deref();
    let pack = (program.file.as_str(), program.scenarios);
    let mut opened = Catalogue::open(&options.files, pack, wanted, scope, check)?;
    // (a long file being recorded may hold the scenario asked for)
    opened.catalogue.hold(&mut opened.mismatch, &options.recording);
    // Unreadable files, then the attributes' mistakes, then the scenario asked for.
    let mut notices = opened.unreadable;
    notices.extend(program.notice);
    notices.extend(settings.notices.iter().cloned().chain(opened.mismatch));
    let (authored, listing_notices) = listings::open(&options.listings, settings.lang)?;
    notices.extend(listing_notices);
    let code = match program.scope {
        Some(_) => Code::Python,
        None => listings::shown(settings.code, &authored, settings.lang),
    };
    Ok(Start { catalogue: opened.catalogue, notices, authored, code, checked: opened.checked })
}
