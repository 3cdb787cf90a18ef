//! The packs the page fetches (`www/data/<pack>.json`, core/src/pack.rs)
//! hold exactly the texts their programs are compiled with here: a pack
//! that drifted from its program would show a listing that is not the code
//! that ran. Regenerate with `UPDATE_GOLDEN=1 cargo test --test packs`.

use agent_loop_core::pack;
use agent_loop_core::programs;
use std::path::Path;

#[test]
fn every_pack_file_is_its_programs_texts() {
    let mut seen = 0;
    for program in programs::ALL {
        let Some(name) = program.pack else { continue };
        seen += 1;
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("www/data/{name}.json"));
        let want = pack::file(name, &program.texts());
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &want).unwrap();
        }
        let have = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 cargo test --test packs)", path.display()));
        assert!(
            have == want,
            "{} differs from {name}'s texts: UPDATE_GOLDEN=1 cargo test --test packs",
            path.display()
        );
        // Every text of the program is in it, under the pack's prefix, and
        // nothing else.
        let v: serde_json::Value = serde_json::from_str(&have).unwrap();
        let texts = v["texts"].as_object().unwrap();
        assert_eq!(texts.len(), program.texts().len(), "{name}: one entry per text");
        for text in program.texts() {
            assert!(text.name.starts_with(&format!("{name}/")), "{}: named under its pack", text.name);
            assert_eq!(texts[text.name].as_str(), Some(text.get()), "{}", text.name);
        }
    }
    assert!(seen >= 1, "lesson two at least comes in a pack");
    // A program without a pack is the one the page opens on (lesson one).
    assert!(programs::lesson_one::PROGRAM.pack.is_none());
}

#[test]
fn a_pack_file_registers_and_a_second_time_changes_nothing() {
    let program = &programs::lesson_two::PROGRAM;
    let file = pack::file("lesson_two", &program.texts());
    let before = pack::generation();
    assert_eq!(pack::register(&file).as_deref(), Ok("lesson_two"));
    assert_eq!(pack::register(&file).as_deref(), Ok("lesson_two"));
    assert!(pack::generation() <= before + 1);
    assert!(program.loaded());
}
