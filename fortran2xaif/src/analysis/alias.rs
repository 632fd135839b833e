//! Flow-insensitive alias analysis with arrays as atoms.
//!
//! Every location owns one virtual address (`LocationId` index + 1; XAIF
//! addresses are positive). A dummy argument may in addition refer to
//! whatever storage the actuals bound to it at any call site may refer to.
//! Two locations may alias when their address sets intersect.
//!
//! Address sets are sorted vectors: almost all are singletons, and a bit
//! set per location would make memory quadratic in the program size.

use std::collections::HashMap;

use super::call_graph::{CallGraph, CallSite};
use super::ir::{LocationId, LocationKind, Program};
use xaif_schema::model::{AliasRange, AliasSet, AliasSetMap};

/// Alias information of the whole program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Alias {
    /// `addresses[l]`: the locations (address − 1) `l` may refer to, sorted.
    pub addresses: Vec<Vec<LocationId>>,
    /// `keys[l]`: the `AliasSetMap` key of every reference to `l` (≥ 1).
    pub keys: Vec<u64>,
    /// `partners[l]`: other locations visible in the same unit that may
    /// share storage with `l` (dummies of that unit and globals).
    pub partners: Vec<Vec<LocationId>>,
    /// Key `k` (k ≥ 1) → address set, at index `k - 1`.
    sets: Vec<Vec<LocationId>>,
    /// `partial[l]`: references to `l` may touch only part of its range.
    partial: Vec<bool>,
}

/// `into ∪= from` for sorted vectors; true when `into` grew.
fn merge_into(into: &mut Vec<LocationId>, from: &[LocationId]) -> bool {
    if from.iter().all(|x| into.binary_search(x).is_ok()) {
        return false;
    }
    let mut merged = Vec::with_capacity(into.len() + from.len());
    let (mut i, mut j) = (0, 0);
    while i < into.len() || j < from.len() {
        let next = match (into.get(i), from.get(j)) {
            (Some(a), Some(b)) if a < b => {
                i += 1;
                *a
            }
            (Some(a), Some(b)) if b < a => {
                j += 1;
                *b
            }
            (Some(a), Some(_)) => {
                i += 1;
                j += 1;
                *a
            }
            (Some(a), None) => {
                i += 1;
                *a
            }
            (None, Some(b)) => {
                j += 1;
                *b
            }
            (None, None) => break,
        };
        merged.push(next);
    }
    *into = merged;
    true
}

/// Do two sorted vectors share an element?
fn sorted_intersect(a: &[LocationId], b: &[LocationId]) -> bool {
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

impl Alias {
    pub fn compute(program: &Program, call_graph: &CallGraph) -> Alias {
        let n = program.locations.len();
        let mut addresses: Vec<Vec<LocationId>> =
            (0..n).map(|l| vec![LocationId(l as u32)]).collect();
        // Dummies inherit the storage of their actuals, callers first: one
        // pass unless there is recursion.
        let mut rank = vec![0; program.units.len()];
        for (r, u) in call_graph.bottom_up.iter().rev().enumerate() {
            rank[u.index()] = r;
        }
        let mut sites: Vec<&CallSite> = call_graph.sites.iter().collect();
        sites.sort_by_key(|s| rank.get(s.caller.index()).copied().unwrap_or(0));
        let mut changed = true;
        while changed {
            changed = false;
            for site in &sites {
                let Some(callee) = program.unit(site.callee) else {
                    continue;
                };
                for (actual, dummy) in site.actuals.iter().zip(&callee.dummies) {
                    let Some(actual) = actual else { continue };
                    if actual == dummy || actual.index() >= n || dummy.index() >= n {
                        continue;
                    }
                    let from = addresses[actual.index()].clone();
                    changed |= merge_into(&mut addresses[dummy.index()], &from);
                }
            }
        }
        let mut partners = vec![Vec::new(); n];
        let is_global =
            |l: LocationId| program.location(l).map(|i| i.kind) == Some(LocationKind::Global);
        for unit in &program.units {
            for (i, d) in unit.dummies.iter().enumerate() {
                if d.index() >= n {
                    continue;
                }
                for e in unit.dummies.iter().skip(i + 1) {
                    if e.index() < n
                        && d != e
                        && sorted_intersect(&addresses[d.index()], &addresses[e.index()])
                    {
                        partners[d.index()].push(*e);
                        partners[e.index()].push(*d);
                    }
                }
                for g in addresses[d.index()].clone() {
                    if is_global(g) {
                        partners[d.index()].push(g);
                        partners[g.index()].push(*d);
                    }
                }
            }
        }
        for p in &mut partners {
            p.sort();
            p.dedup();
        }
        let mut by_set: HashMap<Vec<LocationId>, u64> = HashMap::new();
        let mut sets = Vec::new();
        let keys = addresses
            .iter()
            .map(|a| {
                *by_set.entry(a.clone()).or_insert_with(|| {
                    sets.push(a.clone());
                    sets.len() as u64
                })
            })
            .collect();
        let partial = program.locations.iter().map(|l| l.is_array).collect();
        Alias {
            addresses,
            keys,
            partners,
            sets,
            partial,
        }
    }

    /// The `alias` attribute of a reference to `loc` (0: alias everything).
    pub fn key_of(&self, loc: LocationId) -> u64 {
        self.keys.get(loc.index()).copied().unwrap_or(0)
    }

    /// May `a` and `b` share storage?
    pub fn may_alias(&self, a: LocationId, b: LocationId) -> bool {
        match (self.addresses.get(a.index()), self.addresses.get(b.index())) {
            (Some(x), Some(y)) => sorted_intersect(x, y),
            _ => true,
        }
    }

    /// Locations visible next to `loc` that may share its storage.
    pub fn partners_of(&self, loc: LocationId) -> &[LocationId] {
        self.partners.get(loc.index()).map_or(&[], |p| p.as_slice())
    }

    /// The XAIF `AliasSetMap`: key 0 (alias all) spans every address; then
    /// one set per distinct address set, consecutive addresses merged into
    /// ranges. Array ranges are partial (an element reference touches part
    /// of the atom), scalar ranges are not.
    pub fn alias_set_map(&self) -> AliasSetMap {
        let n = self.addresses.len() as u64;
        let mut out = vec![AliasSet {
            key: 0,
            ranges: if n == 0 {
                Vec::new()
            } else {
                vec![AliasRange {
                    from_virtual_address: 1,
                    to_virtual_address: n,
                    partial: true,
                }]
            },
        }];
        for (k, set) in self.sets.iter().enumerate() {
            let mut ranges: Vec<AliasRange> = Vec::new();
            for l in set {
                let addr = l.0 as u64 + 1;
                let partial = self.partial.get(l.index()).copied().unwrap_or(true);
                match ranges.last_mut() {
                    Some(r) if r.to_virtual_address + 1 == addr && r.partial == partial => {
                        r.to_virtual_address = addr
                    }
                    _ => ranges.push(AliasRange {
                        from_virtual_address: addr,
                        to_virtual_address: addr,
                        partial,
                    }),
                }
            }
            out.push(AliasSet {
                key: k as u64 + 1,
                ranges,
            });
        }
        AliasSetMap { sets: out }
    }
}
