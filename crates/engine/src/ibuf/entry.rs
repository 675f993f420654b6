//! One buffered change as the change buffer's tree stores it.
//!
//! ```text
//! key    u32 space (BE) | u32 page (BE) | u64 sequence (BE)
//! value  u8 operation | u32 index id (LE) | u16 key length (LE) | key | value
//! ```
//! Keys sort by page, then by the order the changes were buffered in: a
//! merge applies them in that order.

use crate::PageId;

pub const KEY_LEN: usize = 16;

/// What a buffered change does to the leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Insert the entry unless its key is present (a new or changed row's
    /// secondary entry).
    Insert = 1,
    /// Remove the key if present (purge).
    Remove = 2,
}

/// A decoded change.
#[derive(Debug, PartialEq, Eq)]
pub struct Change<'a> {
    pub op: Op,
    pub index_id: u32,
    pub key: &'a [u8],
    pub val: &'a [u8],
}

/// The tree key of the change numbered `seq` for page `id`.
pub fn key(id: PageId, seq: u64) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[..4].copy_from_slice(&id.space.to_be_bytes());
    k[4..8].copy_from_slice(&id.page_no.to_be_bytes());
    k[8..].copy_from_slice(&seq.to_be_bytes());
    k
}

/// The page and sequence number of a tree key.
pub fn parse_key(k: &[u8]) -> Option<(PageId, u64)> {
    if k.len() != KEY_LEN {
        return None;
    }
    let space = u32::from_be_bytes(k[..4].try_into().ok()?);
    let page = u32::from_be_bytes(k[4..8].try_into().ok()?);
    Some((PageId::new(space, page), u64::from_be_bytes(k[8..].try_into().ok()?)))
}

pub fn encode(c: &Change<'_>) -> Vec<u8> {
    let mut v = Vec::with_capacity(7 + c.key.len() + c.val.len());
    v.push(c.op as u8);
    v.extend_from_slice(&c.index_id.to_le_bytes());
    v.extend_from_slice(&(c.key.len() as u16).to_le_bytes());
    v.extend_from_slice(c.key);
    v.extend_from_slice(c.val);
    v
}

pub fn decode(v: &[u8]) -> Option<Change<'_>> {
    let op = match *v.first()? {
        1 => Op::Insert,
        2 => Op::Remove,
        _ => return None,
    };
    let index_id = u32::from_le_bytes(v.get(1..5)?.try_into().ok()?);
    let klen = u16::from_le_bytes(v.get(5..7)?.try_into().ok()?) as usize;
    let key = v.get(7..7 + klen)?;
    Some(Change { op, index_id, key, val: &v[7 + klen..] })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_round_trip_and_keys_sort_by_page_then_sequence() {
        let c = Change { op: Op::Insert, index_id: 77, key: b"k\x00\x01", val: b"v" };
        assert_eq!(decode(&encode(&c)), Some(c));
        let r = Change { op: Op::Remove, index_id: 1, key: b"", val: b"" };
        assert_eq!(decode(&encode(&r)), Some(r));
        assert_eq!(decode(&[9, 0, 0, 0, 0, 0, 0]), None);
        assert_eq!(decode(&[1, 0, 0, 0, 0, 5, 0, 1]), None, "a key running past the end");
        let a = key(PageId::new(2, 9), u64::MAX);
        let b = key(PageId::new(2, 10), 0);
        let c = key(PageId::new(3, 0), 0);
        assert!(a < b && b < c);
        assert_eq!(parse_key(&b), Some((PageId::new(2, 10), 0)));
    }
}
