//! `check --listing --stamp`: the proof the page asks for before it shows
//! an author's listing (docs/listing-format.md, "The stamp"), written only
//! when CPython ran the listing on every shipped scenario with the recorded
//! lines; the native CLI and the Node build say and write the same.

// The CLI is a native tool.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::record::{native, node, root, Ran};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/listings").join(name)
}

/// What one CLI (`run`) says and writes, in a folder of its own.
fn stamps(name: &str, run: &dyn Fn(&[&str]) -> Option<Ran>) -> Option<Vec<(Ran, String)>> {
    let dir = std::env::temp_dir().join(format!("alp-stamp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(fixture("lesson.zh.py")).unwrap();
    let stamp_line = good.lines().find(|l| l.starts_with("#| stamp ")).expect("the fixture is stamped");
    let bare = good.replace(&format!("{stamp_line}\n"), "");
    // (departs.py of mistakes.json: its marks pass, its code departs)
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("mistakes.json")).unwrap()).unwrap();
    let case = cases["cases"].as_array().unwrap().iter().find(|c| c["file"] == "departs.py").unwrap();
    let (from, to) = (case["replace"][0].as_str().unwrap(), case["replace"][1].as_str().unwrap());
    let (mine, departs) = (dir.join("mine.py"), dir.join("departs.py"));
    std::fs::write(&mine, &bare).unwrap();
    std::fs::write(&departs, good.replace(from, to)).unwrap();
    let (mine_arg, departs_arg) = (mine.to_str().unwrap(), departs.to_str().unwrap());
    let fixture_arg = fixture("lesson.zh.py");
    let mut said = Vec::new();
    for args in [
        vec!["check", "--listing", fixture_arg.to_str().unwrap()],
        vec!["check", "--listing", mine_arg],
        vec!["check", "--listing", mine_arg, "--stamp"],
        vec!["check", "--listing", departs_arg],
        vec!["check", "--listing", departs_arg, "--stamp"],
        vec!["check", "--listing", mine_arg, "../fixtures/scenarios", "--stamp"],
    ] {
        // (the usage after a refused command line names each build's own program)
        let Some(ran) = run(&args).map(|r| Ran { err: r.err.lines().next().unwrap_or("").to_string(), ..r })
        else {
            std::fs::remove_dir_all(&dir).ok();
            return None;
        };
        let files = [&mine, &departs].map(|p| std::fs::read_to_string(p).unwrap()).join("\n----\n");
        said.push((ran, files.replace(dir.to_str().unwrap(), "<dir>")));
    }
    std::fs::remove_dir_all(&dir).ok();
    Some(
        said.into_iter()
            .map(|(r, f)| (Ran { out: r.out.replace(&dir_str(&dir), "<dir>"), ..r }, f))
            .collect(),
    )
}

fn dir_str(dir: &Path) -> String {
    dir.to_str().unwrap().to_string()
}

#[test]
fn stamp_writes_the_proof_only_when_cpython_agrees_and_both_clis_say_the_same() {
    if common::record::python_version().is_none() {
        eprintln!("no python3 here: nothing can be stamped");
        return;
    }
    let good = std::fs::read_to_string(fixture("lesson.zh.py")).unwrap();
    let stamp_line = good.lines().find(|l| l.starts_with("#| stamp ")).unwrap().to_string();
    let said = stamps("native", &|args| Some(native(args, None))).unwrap();
    let [fixture_ran, bare, stamped, departs, refused, with_dir] = &said[..] else { panic!("{said:?}") };
    // The shipped fixture: its stamp is current.
    assert_eq!(fixture_ran.0.code, 0, "{fixture_ran:?}");
    assert!(
        fixture_ran.0.out.ends_with("lesson.zh.py: its stamp is current; the page shows it\n"),
        "{fixture_ran:?}"
    );
    // Without one: said, and the check still passes.
    assert_eq!(bare.0.code, 0, "{bare:?}");
    assert!(
        bare.0.out.ends_with("mine.py: no stamp, so the page will not show it (--stamp writes it)\n"),
        "{bare:?}"
    );
    // --stamp writes the fixture's very stamp, at the end; nothing else changes.
    assert_eq!(stamped.0.code, 0, "{stamped:?}");
    assert!(stamped.0.out.ends_with(&format!("mine.py: stamped {}; the page shows it\n", &stamp_line[9..])));
    let bare_text = good.replace(&format!("{stamp_line}\n"), "");
    let mine_now = stamped.1.split("\n----\n").next().unwrap();
    assert_eq!(mine_now, format!("{bare_text}{stamp_line}\n"));
    // A listing that departs: the departure is the news; --stamp writes nothing.
    assert_eq!(departs.0.code, 1);
    assert!(departs.0.out.ends_with("departs.py: departs from the recorded run\n"), "{departs:?}");
    assert_eq!(refused.0.code, 1);
    assert!(refused.0.out.ends_with(
        "departs.py: not stamped: CPython did not run it on every shipped scenario with the recorded lines\n"
    ));
    assert_eq!(refused.1, departs.1, "the file is left as it was");
    // A stamp proves the shipped scenarios, the page's: not with a folder.
    assert_eq!(with_dir.0.code, 2);
    assert!(with_dir.0.err.contains("--stamp runs the shipped scenarios"), "{with_dir:?}");
    // The Node build says and writes the same.
    if let Some(theirs) = stamps("node", &|args| node(args)) {
        assert_eq!(theirs, said);
    }
}
