//! A fixed-capacity bit set for the data-flow sets.

/// A set of small integers `0..capacity`.
#[derive(Debug, Clone, Default)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// An empty set over `0..universe`. Words are allocated as members
    /// arrive, up to the highest one: a set that stays empty (the
    /// dependence state of an integer slot, a block no path reaches)
    /// costs no universe-sized allocation, which made the dependence
    /// summaries' per-block states slots x universe bits each
    /// (docs/benchmarks.md, 25 Nov 2026 (8)).
    pub fn new(_universe: usize) -> BitSet {
        BitSet::default()
    }

    fn grow_to(&mut self, i: usize) {
        let need = i / 64 + 1;
        if need > self.words.len() {
            self.words.resize(need, 0);
        }
    }

    /// Adds `i`; true when it was not there.
    pub fn insert(&mut self, i: usize) -> bool {
        self.grow_to(i);
        let (w, b) = (i / 64, 1u64 << (i % 64));
        let fresh = self.words[w] & b == 0;
        self.words[w] |= b;
        fresh
    }

    pub fn remove(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1u64 << (i % 64));
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// `self ∪= other`; true when `self` grew.
    pub fn union_with(&mut self, other: &BitSet) -> bool {
        if other.words.len() > self.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        let mut changed = false;
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            let n = *a | *b;
            changed |= n != *a;
            *a = n;
        }
        changed
    }

    /// `self ∖= other`.
    pub fn difference_with(&mut self, other: &BitSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !*b;
        }
    }

    /// `self ∩= other`.
    pub fn intersect_with(&mut self, other: &BitSet) {
        for (i, a) in self.words.iter_mut().enumerate() {
            *a &= other.words.get(i).copied().unwrap_or(0);
        }
    }

    pub fn intersects(&self, other: &BitSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    pub fn is_subset(&self, other: &BitSet) -> bool {
        self.words
            .iter()
            .enumerate()
            .all(|(i, a)| a & !other.words.get(i).copied().unwrap_or(0) == 0)
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut rest = w;
            std::iter::from_fn(move || {
                if rest == 0 {
                    return None;
                }
                let b = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                Some(wi * 64 + b)
            })
        })
    }
}

impl PartialEq for BitSet {
    // Equal members, whatever the number of trailing empty words.
    fn eq(&self, other: &BitSet) -> bool {
        let n = self.words.len().max(other.words.len());
        (0..n).all(|i| self.words.get(i).unwrap_or(&0) == other.words.get(i).unwrap_or(&0))
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
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn model(s: &BitSet) -> BTreeSet<usize> {
        s.iter().collect()
    }

    proptest! {
        #[test]
        fn operations_agree_with_a_btreeset(
            xs in prop::collection::vec(0usize..300, 0..40),
            ys in prop::collection::vec(0usize..300, 0..40),
            drop in prop::collection::vec(0usize..300, 0..10),
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
