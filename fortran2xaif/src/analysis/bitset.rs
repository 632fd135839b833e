//! The set type of the data-flow analyses: a compressed bitmap
//! (`roaring`), so that a set costs what its members take, not what the
//! program's universe does.
//!
//! The analyses number locations program-wide, and keep sets per unit
//! (`entry_varied`, `exit_useful`, `entry_live`), per block and per
//! statement; a unit touches its own locals and a few globals, so nearly
//! every set is sparse in a universe that grows with the program. Dense
//! words made those sets units × locations bits (quadratic in the program
//! size) and every copy of a per-statement set cost the whole universe.
//! Roaring keeps each 2^16-member chunk as a sorted array while it is
//! sparse and as a bitmap when it is dense, so dense sets (reaching
//! definitions in one unit) stay bitmaps.

use roaring::RoaringBitmap;

/// A set of small integers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BitSet {
    bits: RoaringBitmap,
}

/// Members are location, site or unit numbers, which are `u32` in the IR.
fn key(i: usize) -> u32 {
    u32::try_from(i).expect("set member beyond u32 (the IR numbers with u32)")
}

impl BitSet {
    /// An empty set. The universe's size is only a hint (sets grow as
    /// members are added); kept in the signature so callers say what
    /// universe a set is over.
    pub fn new(_universe: usize) -> BitSet {
        BitSet::default()
    }

    /// Adds `i`; true when it was not there.
    pub fn insert(&mut self, i: usize) -> bool {
        self.bits.insert(key(i))
    }

    pub fn remove(&mut self, i: usize) {
        if let Ok(k) = u32::try_from(i) {
            self.bits.remove(k);
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        u32::try_from(i).is_ok_and(|k| self.bits.contains(k))
    }

    /// `self ∪= other`; true when `self` grew.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        if other.bits.is_subset(&self.bits) {
            return false;
        }
        self.bits |= &other.bits;
        true
    }

    /// `self ∖= other`.
    pub fn difference_with(&mut self, other: &BitSet) {
        self.bits -= &other.bits;
    }

    /// `self ∩= other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        self.bits &= &other.bits;
    }

    pub fn intersects(&self, other: &BitSet) -> bool {
        !self.bits.is_disjoint(&other.bits)
    }

    pub fn is_subset(&self, other: &BitSet) -> bool {
        self.bits.is_subset(&other.bits)
    }

    pub fn is_empty(&self) -> bool {
        self.bits.is_empty()
    }

    pub fn len(&self) -> usize {
        self.bits.len() as usize
    }

    pub fn clear(&mut self) {
        self.bits.clear();
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().map(|k| k as usize)
    }
}

impl Eq for BitSet {}

impl FromIterator<usize> for BitSet {
    fn from_iter<T: IntoIterator<Item = usize>>(iter: T) -> Self {
        let mut s = BitSet::default();
        for i in iter {
            s.insert(i);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::BitSet;

    #[test]
    fn set_operations_follow_their_definitions() {
        let a: BitSet = [1, 5, 70_000, 200_000].into_iter().collect();
        let b: BitSet = [5, 6, 200_000].into_iter().collect();
        let mut u = a.clone();
        assert!(u.union_with(&b));
        assert!(!u.union_with(&b), "a second union adds nothing");
        assert_eq!(u.iter().collect::<Vec<_>>(), [1, 5, 6, 70_000, 200_000]);
        let mut i = a.clone();
        i.intersect_with(&b);
        assert_eq!(i.iter().collect::<Vec<_>>(), [5, 200_000]);
        let mut d = a.clone();
        d.difference_with(&b);
        assert_eq!(d.iter().collect::<Vec<_>>(), [1, 70_000]);
        assert!(a.intersects(&b) && !d.intersects(&b));
        assert!(i.is_subset(&a) && !a.is_subset(&b));
        assert_eq!(u.len(), 5);
        u.remove(6);
        assert!(!u.contains(6) && u.contains(70_000));
        u.clear();
        assert!(u.is_empty());
        assert_eq!(BitSet::new(10), BitSet::default(), "equal by members");
    }
}
