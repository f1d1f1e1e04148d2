//! Fuzz target `record_replay`: runs [`jchomp_fuzz::checks::record_replay`] on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| jchomp_fuzz::checks::record_replay(data));
