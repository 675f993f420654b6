//! The checksum `binlog_checksum=CRC32` appends to every event: zlib's
//! CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), not the CRC-32C
//! quire's pages use (MySQL's `checksum_crc32()` calls zlib's `crc32()`).

const fn table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u32; 256] = table();

/// zlib's `crc32(0, bytes)`.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in bytes {
        c = TABLE[((c ^ b as u32) & 0xff) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    #[test]
    fn crc32_matches_zlib_check_value() {
        // The standard check value of CRC-32/ISO-HDLC (zlib.crc32(b"123456789")).
        assert_eq!(super::crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(super::crc32(b""), 0);
    }
}
