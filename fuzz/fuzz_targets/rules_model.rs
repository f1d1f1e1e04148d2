//! Fuzz target `rules_model`: runs [`jchomp_fuzz::checks::rules_model`] on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| jchomp_fuzz::checks::rules_model(data));
