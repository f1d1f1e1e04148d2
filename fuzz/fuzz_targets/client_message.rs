//! Fuzz target `client_message`: runs [`jchomp_testkit::checks::client_message`] on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| jchomp_testkit::checks::client_message(data));
