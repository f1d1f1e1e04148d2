//! Fuzz target `client_message`: runs [`jchomp_fuzz::checks::client_message`] on every input.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| jchomp_fuzz::checks::client_message(data));
