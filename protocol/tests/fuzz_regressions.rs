//! The fuzz targets' checks, bounded for CI: every kept input under `fuzz/regressions/` (crash
//! inputs found by fuzzing and samples of the corpora) is replayed through the same check the
//! fuzz target runs, and proptest feeds each check a few hundred fresh random inputs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use jchomp_testkit::checks;

use proptest::prelude::*;
use std::path::PathBuf;

/// The kept inputs of one fuzz target, sorted by name.
fn kept(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let data = std::fs::read(&p).unwrap();
            (p, data)
        })
        .collect()
}

/// Runs `check` on every kept input of `target`, naming the file that fails.
fn replay(target: &str, min_inputs: usize, check: fn(&[u8])) {
    let inputs = kept(target);
    assert!(
        inputs.len() >= min_inputs,
        "{target}: only {} kept inputs",
        inputs.len()
    );
    for (path, data) in inputs {
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            panic!("{} fails its check", path.display());
        }
    }
}

#[test]
fn kept_client_messages_replay() {
    replay("client_message", 10, checks::client_message);
}

#[test]
fn kept_records_replay() {
    replay("record_replay", 10, checks::record_replay);
}

#[test]
fn kept_rules_inputs_replay() {
    replay("rules_model", 10, checks::rules_model);
}

/// JSON-ish text: fragments of the protocol's own vocabulary glued together, so that random
/// inputs reach past the first syntax error.
fn jsonish() -> impl Strategy<Value = Vec<u8>> {
    let pieces = prop::sample::select(vec![
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        "\"type\"",
        "\"move\"",
        "\"row\"",
        "\"col\"",
        "\"config\"",
        "\"seats\"",
        "\"moves\"",
        "\"result\"",
        "\"kind\"",
        "\"poisoned\"",
        "\"loser\"",
        "\"seat\"",
        "\"rows\"",
        "\"cols\"",
        "\"players\"",
        "\"eat\"",
        "\"poison\"",
        "\"create_room\"",
        "0",
        "1",
        "4",
        "-1",
        "null",
        "true",
        "1e999",
        "9223372036854775808",
        "\"\\ud800\"",
        "\"x\"",
    ]);
    prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat().into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_client_messages(data in prop_oneof![jsonish(), prop::collection::vec(any::<u8>(), 0..200)]) {
        checks::client_message(&data);
    }

    #[test]
    fn random_records(data in jsonish()) {
        checks::record_replay(&data);
    }

    #[test]
    fn random_rules_inputs(data in prop::collection::vec(any::<u8>(), 0..300)) {
        checks::rules_model(&data);
    }
}
