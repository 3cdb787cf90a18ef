//! The packs the page fetches (`www/data/<pack>.json`, core/src/pack.rs)
//! hold exactly the texts their programs are compiled with here: a pack
//! that drifted from its program would show a listing that is not the code
//! that ran. Regenerate with `UPDATE_GOLDEN=1 cargo test --test packs`.
//!
//! Lessons tested: lesson_one, lesson_two.

use agent_loop_core::pack;
use agent_loop_core::programs;
use agent_loop_core::scenario;
use std::path::Path;

#[test]
fn every_pack_file_is_its_programs_texts() {
    let mut seen = 0;
    for program in programs::ALL {
        let Some(name) = program.pack else { continue };
        seen += 1;
        let have = golden(name, scenario::pack_file(program));
        // Every text of the program is in it, under the pack's prefix, and
        // its scenarios (every shipped one of its functions, none other),
        // and nothing else.
        let v: serde_json::Value = serde_json::from_str(&have).unwrap();
        let texts = v["texts"].as_object().unwrap();
        let scenarios = scenario::texts_of(program).count();
        assert_eq!(texts.len(), program.texts().len() + scenarios, "{name}: one entry per text");
        for text in program.texts() {
            assert!(text.name.starts_with(&format!("{name}/")), "{}: named under its pack", text.name);
            assert_eq!(texts[text.name].as_str(), Some(text.get()), "{}", text.name);
        }
        // Its scenarios, read from fixtures/scenarios/ here (not through
        // the code that wrote the pack): every file of one of its functions.
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/scenarios");
        let mut own: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| {
                let file = e.ok()?.file_name().into_string().ok()?;
                let v: serde_json::Value =
                    serde_json::from_str(&std::fs::read_to_string(dir.join(&file)).ok()?).ok()?;
                let function = programs::function(v["function"].as_str()?)?;
                (programs::of(function).name == program.name).then_some(file)
            })
            .collect();
        own.sort();
        let prefix = format!("{name}/scenarios/");
        let mut packed: Vec<String> =
            texts.keys().filter_map(|k| k.strip_prefix(&prefix).map(String::from)).collect();
        packed.sort();
        assert!(own.len() >= 10, "{name}: its scenarios ({})", own.len());
        assert_eq!(packed, own, "{name}: the pack brings its scenarios, no other");
        for file in &packed {
            let text = texts[&format!("{prefix}{file}")].as_str().unwrap();
            let scenario = scenario::Scenario::parse(text);
            assert!(scenario.is_ok_and(|s| programs::of(s.function).name == program.name), "{file}");
            // (the page never reads them: the pack leaves them out)
            let v: serde_json::Value = serde_json::from_str(text).unwrap();
            assert!(
                v.get("expect").is_none() && v.get("notes").is_none(),
                "{file}: without expect and notes"
            );
        }
    }
    assert!(seen >= 1, "lesson two at least comes in a pack");
    let languages = languages_packed();
    // The build knows each pack file by its hash (core/build.rs computes it
    // with the steps of preview::Fnv): the same number.
    if std::env::var_os("UPDATE_GOLDEN").is_none() {
        for (name, built) in pack::built_with() {
            let text =
                std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("www/data/{name}.json")))
                    .unwrap();
            let mut hash = agent_loop_core::preview::Fnv::new();
            hash.bytes(&text);
            assert_eq!(hash.0, *built, "{name}: core/build.rs's hash is preview::Fnv's");
        }
        assert_eq!(pack::built_with().len(), seen + languages);
    }
    // A program without a pack is the one the page opens on (lesson one).
    assert!(programs::lesson_one::PROGRAM.pack.is_none());
}

#[test]
fn a_pack_file_registers_and_a_second_time_changes_nothing() {
    let program = &programs::lesson_two::PROGRAM;
    let file = scenario::pack_file(program);
    let before = pack::generation();
    assert_eq!(programs::add_pack("lesson_two", &file).as_deref(), Ok("lesson_two"));
    assert_eq!(programs::add_pack("lesson_two", &file).as_deref(), Ok("lesson_two"));
    assert!(pack::generation() <= before + 1);
    assert!(program.loaded());
}

#[test]
fn a_pack_brings_its_programs_captions_in_every_language_and_no_others() {
    use agent_loop_core::i18n::Lang;
    let program = &programs::lesson_two::PROGRAM;
    let v: serde_json::Value = serde_json::from_str(&scenario::pack_file(program)).unwrap();
    for lang in Lang::all() {
        let captions = v["captions"][lang.code()].as_object().unwrap();
        let own: Vec<&str> = lang.caption_keys().into_iter().filter(|k| program.owns_caption(k)).collect();
        assert!(own.len() >= 20, "{}: lesson two's captions ({})", lang.code(), own.len());
        assert_eq!(captions.keys().map(String::as_str).collect::<Vec<_>>(), own, "{}", lang.code());
        assert!(captions.contains_key("core.ask") && !captions.contains_key("loop.ask"), "{}", lang.code());
        assert_eq!(captions["core.ask"]["title"].as_str(), lang.caption("core.ask").map(|c| c.0));
    }
    // No namespace is two programs'.
    for a in programs::ALL {
        for b in programs::ALL.iter().filter(|b| b.name != a.name) {
            assert!(a.namespaces.iter().all(|n| !b.namespaces.contains(n)), "{} and {}", a.name, b.name);
        }
    }
}

/// Every language but the default is a pack of its own
/// (`www/data/<code>.json`: its table, less the captions the programs'
/// packs bring), which the page fetches the first time it is shown.
/// Returns how many there are.
fn languages_packed() -> usize {
    use agent_loop_core::i18n::Lang;
    let mut seen = 0;
    for lang in Lang::all().into_iter().filter(|l| *l != Lang::default_lang()) {
        seen += 1;
        golden(lang.code(), scenario::language_pack(lang));
    }
    seen
}

/// `www/data/<name>.json`, which must be `want` (written with
/// `UPDATE_GOLDEN`): its text.
fn golden(name: &str, want: String) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("www/data/{name}.json"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 cargo test --test packs)", path.display()));
    assert!(
        have == want,
        "{} differs from what it is written from: UPDATE_GOLDEN=1 cargo test --test packs",
        path.display()
    );
    have
}

#[test]
fn a_language_pack_is_its_table_less_the_programs_packs_captions() {
    use agent_loop_core::i18n::Lang;
    let en = Lang::parse("en").unwrap();
    assert_ne!(en, Lang::default_lang(), "English is a pack; the default language is not");
    // Read from fixtures/i18n/en.json here, not through the code that wrote the pack.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/i18n/en.json");
    let table: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let pack: serde_json::Value = serde_json::from_str(&scenario::language_pack(en)).unwrap();
    assert_eq!(pack["pack"], "en");
    assert_eq!(pack["texts"], serde_json::json!({}));
    let language = &pack["language"];
    for key in ["code", "name", "html_lang", "words", "said"] {
        assert_eq!(language[key], table[key], "{key}");
    }
    let captions = language["captions"].as_object().unwrap();
    let two = &programs::lesson_two::PROGRAM;
    for (stage, caption) in table["captions"].as_object().unwrap() {
        match two.owns_caption(stage) {
            true => assert!(!captions.contains_key(stage), "{stage}: lesson two's pack brings it"),
            false => assert_eq!(&captions[stage], caption, "{stage}"),
        }
    }
    assert!(captions.contains_key("loop.ask") && !captions.contains_key("core.ask"));
}

#[test]
fn element_js_names_every_pack_file_as_bundlers_read_it() {
    // A pack element.js does not name is never fetched (an "unknown pack"
    // notice), and a bundler emits only files written as this literal.
    // (element.js is bundled from www/element/: packs.js, languages.js.)
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut element = String::new();
    for entry in std::fs::read_dir(root.join("www/element")).unwrap() {
        element += &std::fs::read_to_string(entry.unwrap().path()).unwrap();
    }
    let mut seen = 0;
    for entry in std::fs::read_dir(root.join("www/data")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let name =
            serde_json::from_str::<serde_json::Value>(&text).unwrap()["pack"].as_str().unwrap().to_string();
        let literal = format!(r#"{name}: () => new URL("./data/{name}.json", import.meta.url),"#);
        assert!(element.contains(&literal), "www/element/'s PACKS does not name {name}: {literal}");
        seen += 1;
    }
    assert!(seen >= 2, "lesson two's pack and English's");
}
