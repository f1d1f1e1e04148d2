//! Fuzz target `rules_model`: runs [`jchomp_testkit::checks::rules_model`] on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| jchomp_testkit::checks::rules_model(data));
