//! The transactional parts of records: the header every clustered record
//! carries before its row, and the undo record format.
//!
//! Clustered record value (see docs/FORMAT.md):
//! ```text
//!  0  u8   flags: bit 0 delete-marked
//!  1  u48  id of the transaction that wrote this version
//!  7  u56  roll pointer: the undo record holding the previous version
//!          (0: none)
//! 14       the encoded row (row/codec.rs)
//! ```
//! Undo record payload (inside the framing of txn/undo.rs):
//! ```text
//!  0  u8   kind: 1 insert, 2 update, 3 delete-mark, 4 insert over a
//!          delete-marked record, 5 update that changed no secondary
//!          index key
//!  1  u32  space id of the table
//!  5  u16  key length, then the clustered key
//!     for kinds 2..5: the previous version: its 14-byte header, then
//!     its row (the rest of the record)
//! ```
//! Every integer is little-endian.

use super::undo::RollPtr;
use super::TrxId;

pub const HEADER_LEN: usize = 14;
const DELETED: u8 = 1;
const MAX_TRX: u64 = (1 << 48) - 1;
const MAX_ROLL: u64 = (1 << 56) - 1;

/// The header of a clustered record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecHeader {
    pub deleted: bool,
    pub trx: TrxId,
    pub roll: RollPtr,
}

impl RecHeader {
    pub fn new(trx: TrxId, roll: RollPtr, deleted: bool) -> Self {
        debug_assert!(trx <= MAX_TRX && roll <= MAX_ROLL);
        Self { deleted, trx, roll }
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(if self.deleted { DELETED } else { 0 });
        out.extend_from_slice(&self.trx.to_le_bytes()[..6]);
        out.extend_from_slice(&self.roll.to_le_bytes()[..7]);
    }

    /// Splits a clustered value into its header and row; `None` if it is
    /// too short to be one.
    pub fn split(v: &[u8]) -> Option<(RecHeader, &[u8])> {
        if v.len() < HEADER_LEN || v[0] & !DELETED != 0 {
            return None;
        }
        let mut t = [0u8; 8];
        t[..6].copy_from_slice(&v[1..7]);
        let mut r = [0u8; 8];
        r[..7].copy_from_slice(&v[7..14]);
        Some((
            RecHeader { deleted: v[0] & DELETED != 0, trx: u64::from_le_bytes(t), roll: u64::from_le_bytes(r) },
            &v[HEADER_LEN..],
        ))
    }
}

/// A clustered value: header then row.
pub fn clustered_value(h: RecHeader, row: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER_LEN + row.len());
    h.encode(&mut v);
    v.extend_from_slice(row);
    v
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UndoKind {
    /// The row did not exist before.
    Insert = 1,
    /// The row's previous version is in the record.
    Update = 2,
    /// The row was delete-marked; its previous version is in the record.
    DeleteMark = 3,
    /// A delete-marked record was reused by an insert; the record holds
    /// the delete-marked version.
    Revive = 4,
    /// Like `Update`, but no secondary index key changed: purge has
    /// nothing to remove (InnoDB's "no ordering field changed").
    UpdateNoIndexChange = 5,
}

/// A decoded undo record.
#[derive(Debug, PartialEq, Eq)]
pub struct UndoRec {
    pub kind: UndoKind,
    pub space: u32,
    pub key: Vec<u8>,
    /// The previous version (header and row), for every kind but insert.
    pub prev: Option<(RecHeader, Vec<u8>)>,
}

impl UndoRec {
    pub fn encode(kind: UndoKind, space: u32, key: &[u8], prev: Option<(RecHeader, &[u8])>) -> Vec<u8> {
        let mut v = Vec::with_capacity(7 + key.len() + prev.map_or(0, |(_, r)| HEADER_LEN + r.len()));
        v.push(kind as u8);
        v.extend_from_slice(&space.to_le_bytes());
        v.extend_from_slice(&(key.len() as u16).to_le_bytes());
        v.extend_from_slice(key);
        if let Some((h, row)) = prev {
            h.encode(&mut v);
            v.extend_from_slice(row);
        }
        v
    }

    /// `None` if the bytes are not an undo record.
    pub fn decode(b: &[u8]) -> Option<UndoRec> {
        let kind = match *b.first()? {
            1 => UndoKind::Insert,
            2 => UndoKind::Update,
            3 => UndoKind::DeleteMark,
            4 => UndoKind::Revive,
            5 => UndoKind::UpdateNoIndexChange,
            _ => return None,
        };
        let space = u32::from_le_bytes(b.get(1..5)?.try_into().ok()?);
        let klen = u16::from_le_bytes(b.get(5..7)?.try_into().ok()?) as usize;
        let key = b.get(7..7 + klen)?.to_vec();
        let rest = &b[7 + klen..];
        let prev = match kind {
            UndoKind::Insert => {
                if !rest.is_empty() {
                    return None;
                }
                None
            }
            _ => {
                let (h, row) = RecHeader::split(rest)?;
                Some((h, row.to_vec()))
            }
        };
        Some(UndoRec { kind, space, key, prev })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_and_undo_records_round_trip() {
        let h = RecHeader::new(0x1234_5678_9abc, 0x00ab_cdef_0123_4567, true);
        let v = clustered_value(h, b"row");
        assert_eq!(RecHeader::split(&v), Some((h, &b"row"[..])));
        let u = UndoRec::encode(UndoKind::Update, 7, b"key", Some((h, b"old")));
        assert_eq!(
            UndoRec::decode(&u),
            Some(UndoRec { kind: UndoKind::Update, space: 7, key: b"key".to_vec(), prev: Some((h, b"old".to_vec())) })
        );
        let i = UndoRec::encode(UndoKind::Insert, 7, b"k", None);
        assert_eq!(UndoRec::decode(&i).map(|r| r.kind), Some(UndoKind::Insert));
        assert_eq!(UndoRec::decode(&i[..3]), None);
        assert_eq!(UndoRec::decode(&[9, 0, 0]), None);
    }
}
