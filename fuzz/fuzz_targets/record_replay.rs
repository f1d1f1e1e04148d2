//! Fuzz target `record_replay`: runs [`jchomp_testkit::checks::record_replay`] on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| jchomp_testkit::checks::record_replay(data));
