//! [`AddressCaps`]: how many connections each client address holds, and the [`AddressSlot`]
//! guard a connection keeps while it is served, so that one address cannot take every
//! connection slot. IPv4 addresses count one by one; IPv6 addresses count by their /64 prefix
//! (what one host or one home network is given), and IPv4-mapped IPv6 addresses as IPv4.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, Mutex, MutexGuard};

/// What connections are counted under: one IPv4 address, or one IPv6 /64 prefix.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub(crate) enum AddressKey {
    /// An IPv4 address (or an IPv4-mapped IPv6 one).
    V4(Ipv4Addr),
    /// The first 64 bits of an IPv6 address.
    V6Prefix(u64),
}

impl From<IpAddr> for AddressKey {
    fn from(ip: IpAddr) -> Self {
        match ip {
            IpAddr::V4(a) => AddressKey::V4(a),
            IpAddr::V6(a) => match a.to_ipv4_mapped() {
                Some(v4) => AddressKey::V4(v4),
                None => AddressKey::V6Prefix((u128::from(a) >> 64) as u64),
            },
        }
    }
}

impl std::fmt::Display for AddressKey {
    /// The address as the login throttle counts it: `192.0.2.7`, or `2001:db8:1:2::/64`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AddressKey::V4(a) => write!(f, "{a}"),
            AddressKey::V6Prefix(p) => {
                write!(f, "{}/64", std::net::Ipv6Addr::from(u128::from(*p) << 64))
            }
        }
    }
}

/// The connections held per address, against a cap (`0`: no cap).
#[derive(Debug)]
pub(crate) struct AddressCaps {
    cap: usize,
    held: Mutex<HashMap<AddressKey, usize>>,
}

/// The address already holds its cap of connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AddressFull;

/// One connection counted against its address; dropping it gives the slot back.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    caps: Arc<AddressCaps>,
    /// `None` when there is no cap (nothing was counted).
    key: Option<AddressKey>,
}

impl AddressCaps {
    /// Caps every address at `cap` connections; `0` turns the cap off.
    pub(crate) fn new(cap: usize) -> Arc<AddressCaps> {
        Arc::new(AddressCaps {
            cap,
            held: Mutex::new(HashMap::new()),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<AddressKey, usize>> {
        crate::sync::lock(&self.held)
    }

    /// Counts one more connection from `ip`, unless its address holds the cap already.
    pub(crate) fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<AddressSlot, AddressFull> {
        if self.cap == 0 {
            return Ok(AddressSlot {
                caps: self.clone(),
                key: None,
            });
        }
        let key = AddressKey::from(ip);
        let mut held = self.lock();
        let n = held.entry(key).or_insert(0);
        if *n >= self.cap {
            return Err(AddressFull);
        }
        *n += 1;
        Ok(AddressSlot {
            caps: self.clone(),
            key: Some(key),
        })
    }

    /// The connections `ip`'s address holds now.
    #[cfg(test)]
    fn held(&self, ip: IpAddr) -> usize {
        self.lock().get(&AddressKey::from(ip)).copied().unwrap_or(0)
    }

    /// Addresses holding at least one connection.
    #[cfg(test)]
    fn addresses(&self) -> usize {
        self.lock().len()
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let Some(key) = self.key else {
            return;
        };
        let mut held = self.caps.lock();
        if let Some(n) = held.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn an_address_is_capped_and_gets_its_slots_back() {
        let caps = AddressCaps::new(2);
        let a = caps.admit(ip("10.0.0.1")).unwrap();
        let b = caps.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(caps.admit(ip("10.0.0.1")).err(), Some(AddressFull));
        // Another address is counted apart.
        let other = caps.admit(ip("10.0.0.2")).unwrap();
        drop(a);
        let c = caps.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(caps.held(ip("10.0.0.1")), 2);
        drop((b, c, other));
        assert_eq!(caps.addresses(), 0, "no entry outlives its connections");
    }

    #[test]
    fn ipv6_counts_by_its_64_bit_prefix_and_mapped_ipv4_as_ipv4() {
        let caps = AddressCaps::new(1);
        let _a = caps.admit(ip("2001:db8:1:2::1")).unwrap();
        // The same /64, another interface identifier: the same network.
        assert!(caps.admit(ip("2001:db8:1:2:ffff::9")).is_err());
        // Another /64 is another network.
        let _b = caps.admit(ip("2001:db8:1:3::1")).unwrap();
        let _c = caps.admit(ip("192.0.2.7")).unwrap();
        assert!(caps.admit(ip("::ffff:192.0.2.7")).is_err());
        assert_eq!(caps.held(ip("::ffff:192.0.2.7")), 1);
    }

    #[test]
    fn a_key_is_written_as_its_address_or_its_prefix() {
        let key = |s| AddressKey::from(ip(s)).to_string();
        assert_eq!(key("192.0.2.7"), "192.0.2.7");
        assert_eq!(key("::ffff:192.0.2.7"), "192.0.2.7");
        assert_eq!(key("2001:db8:1:2:ffff::9"), "2001:db8:1:2::/64");
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"));
    }

    #[test]
    fn a_cap_of_zero_counts_nothing() {
        let caps = AddressCaps::new(0);
        let slots: Vec<_> = (0..100)
            .map(|_| caps.admit(ip("127.0.0.1")).unwrap())
            .collect();
        assert_eq!(caps.addresses(), 0);
        drop(slots);
    }
}
