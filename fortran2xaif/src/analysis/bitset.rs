//! A bit set for the data-flow sets.

/// A set of small integers, stored as its non-zero 64-bit words with their
/// positions, in increasing position. A set costs its members' words, not
/// the span up to its highest member: the sets of a unit hold its own
/// locals (numbered late, high) and a few globals (numbered early, low),
/// and a dense word vector up to the highest member made a long unit's
/// per-block sets blocks x program locations bits (docs/benchmarks.md,
/// 25 Nov 2026 (9)). No zero word is stored, so equal sets are equal
/// vectors.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<(u32, u64)>,
}

fn split(i: usize) -> (u32, u64) {
    ((i / 64) as u32, 1u64 << (i % 64))
}

impl BitSet {
    /// An empty set; `_universe` (the largest member's bound) is not
    /// needed: words are stored as members arrive.
    pub fn new(_universe: usize) -> BitSet {
        BitSet::default()
    }

    fn find(&self, w: u32) -> Result<usize, usize> {
        // Members mostly arrive in increasing order: try the end first.
        match self.words.last() {
            Some(&(last, _)) if last < w => Err(self.words.len()),
            Some(&(last, _)) if last == w => Ok(self.words.len() - 1),
            _ => self.words.binary_search_by_key(&w, |&(k, _)| k),
        }
    }

    /// Adds `i`; true when it was not there.
    pub fn insert(&mut self, i: usize) -> bool {
        let (w, b) = split(i);
        match self.find(w) {
            Ok(k) => {
                let fresh = self.words[k].1 & b == 0;
                self.words[k].1 |= b;
                fresh
            }
            Err(k) => {
                self.words.insert(k, (w, b));
                true
            }
        }
    }

    pub fn remove(&mut self, i: usize) {
        let (w, b) = split(i);
        if let Ok(k) = self.find(w) {
            self.words[k].1 &= !b;
            if self.words[k].1 == 0 {
                self.words.remove(k);
            }
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        let (w, b) = split(i);
        self.find(w).is_ok_and(|k| self.words[k].1 & b != 0)
    }

    /// `self ∪= other`; true when `self` grew.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        if other.words.is_empty() {
            return false;
        }
        // Fast path: same word positions (most unions at a join).
        if self.words.len() == other.words.len()
            && self.words.iter().zip(&other.words).all(|(a, b)| a.0 == b.0)
        {
            let mut changed = false;
            for (a, b) in self.words.iter_mut().zip(&other.words) {
                let n = a.1 | b.1;
                changed |= n != a.1;
                a.1 = n;
            }
            return changed;
        }
        let mut out = Vec::with_capacity(self.words.len() + other.words.len());
        let (mut i, mut j) = (0, 0);
        let mut changed = false;
        while i < self.words.len() || j < other.words.len() {
            match (self.words.get(i), other.words.get(j)) {
                (Some(&a), Some(&b)) if a.0 == b.0 => {
                    changed |= a.1 | b.1 != a.1;
                    out.push((a.0, a.1 | b.1));
                    i += 1;
                    j += 1;
                }
                (Some(&a), Some(&b)) if a.0 < b.0 => {
                    out.push(a);
                    i += 1;
                }
                (Some(&a), None) => {
                    out.push(a);
                    i += 1;
                }
                (_, Some(&b)) => {
                    changed = true;
                    out.push(b);
                    j += 1;
                }
                (None, None) => unreachable!(),
            }
        }
        self.words = out;
        changed
    }

    /// `self ∖= other`.
    pub fn difference_with(&mut self, other: &BitSet) {
        if other.words.is_empty() {
            return;
        }
        let mut j = 0;
        for a in self.words.iter_mut() {
            while j < other.words.len() && other.words[j].0 < a.0 {
                j += 1;
            }
            if let Some(b) = other.words.get(j).filter(|b| b.0 == a.0) {
                a.1 &= !b.1;
            }
        }
        self.words.retain(|a| a.1 != 0);
    }

    /// `self ∩= other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        let mut j = 0;
        for a in self.words.iter_mut() {
            while j < other.words.len() && other.words[j].0 < a.0 {
                j += 1;
            }
            match other.words.get(j).filter(|b| b.0 == a.0) {
                Some(b) => a.1 &= b.1,
                None => a.1 = 0,
            }
        }
        self.words.retain(|a| a.1 != 0);
    }

    pub fn intersects(&self, other: &BitSet) -> bool {
        let mut j = 0;
        for a in &self.words {
            while j < other.words.len() && other.words[j].0 < a.0 {
                j += 1;
            }
            if other
                .words
                .get(j)
                .is_some_and(|b| b.0 == a.0 && b.1 & a.1 != 0)
            {
                return true;
            }
        }
        false
    }

    pub fn is_subset(&self, other: &BitSet) -> bool {
        let mut j = 0;
        for a in &self.words {
            while j < other.words.len() && other.words[j].0 < a.0 {
                j += 1;
            }
            match other.words.get(j).filter(|b| b.0 == a.0) {
                Some(b) if a.1 & !b.1 == 0 => {}
                _ => return false,
            }
        }
        true
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.1.count_ones() as usize).sum()
    }

    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().flat_map(|&(wi, w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(wi as usize * 64 + b)
            })
        })
    }
}

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
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn model(s: &BitSet) -> BTreeSet<usize> {
        s.iter().collect()
    }

    /// Members in two clusters far apart, as a unit's globals and locals
    /// are: words with gaps between them.
    fn member() -> impl Strategy<Value = usize> {
        prop_oneof![0usize..300, 100_000usize..100_300]
    }

    proptest! {
        #[test]
        fn operations_agree_with_a_btreeset(
            xs in prop::collection::vec(member(), 0..40),
            ys in prop::collection::vec(member(), 0..40),
            drop in prop::collection::vec(member(), 0..10),
        ) {
            let (mut a, b): (BitSet, BitSet) = (xs.iter().copied().collect(), ys.iter().copied().collect());
            for d in &drop {
                a.remove(*d);
            }
            let (ma, mb) = (model(&a), model(&b));
            let expect: BTreeSet<usize> = xs.iter().copied().filter(|x| !drop.contains(x)).collect();
            prop_assert_eq!(&ma, &expect);
            prop_assert_eq!(a.len(), ma.len());
            prop_assert_eq!(a.is_empty(), ma.is_empty());
            prop_assert_eq!(a.intersects(&b), !ma.is_disjoint(&mb));
            prop_assert_eq!(a.is_subset(&b), ma.is_subset(&mb));
            prop_assert_eq!(a == b, ma == mb);
            let mut u = a.clone();
            let grew = u.union_with(&b);
            prop_assert_eq!(model(&u), ma.union(&mb).copied().collect::<BTreeSet<_>>());
            prop_assert_eq!(grew, !mb.is_subset(&ma));
            let mut i = a.clone();
            i.intersect_with(&b);
            prop_assert_eq!(model(&i), ma.intersection(&mb).copied().collect::<BTreeSet<_>>());
            let mut d = a.clone();
            d.difference_with(&b);
            prop_assert_eq!(model(&d), ma.difference(&mb).copied().collect::<BTreeSet<_>>());
            let mut wide = BitSet::new(4096);
            wide.union_with(&a);
            prop_assert_eq!(&wide, &a, "equal whatever the capacity");
            prop_assert_eq!(&a, &wide);
        }
    }
}
