//! Architecture invariants that the compiler cannot see: the rules stay pure.

use std::path::Path;

/// The rules module knows nothing of JSON, I/O, sockets, threads or async runtimes.
#[test]
fn rules_are_pure() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/rules");
    let forbidden = [
        "serde",
        "tokio",
        "std::io",
        "std::fs",
        "std::net",
        "std::thread",
        "std::time",
        "async ",
        "crate::json",
        "crate::wire",
        "crate::record",
    ];
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            for word in forbidden {
                assert!(!text.contains(word), "{} mentions `{word}`", path.display());
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 5,
        "expected the rules' source files, found {checked}"
    );
}
