//! Flow-insensitive alias analysis with arrays as atoms.
//!
//! Every location owns one virtual address (`LocationId` index + 1; XAIF
//! addresses are positive). A dummy argument may in addition refer to
//! whatever storage the actuals bound to it at any call site may refer to.
//! Two locations may alias when their address sets intersect.

use std::collections::HashMap;

use super::bitset::BitSet;
use super::call_graph::CallGraph;
use super::ir::{LocationId, LocationKind, Program};
use xaif_schema::model::{AliasRange, AliasSet, AliasSetMap};

/// Alias information of the whole program.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Alias {
    /// `addresses[l]`: the location indices (address − 1) `l` may refer to.
    pub addresses: Vec<BitSet>,
    /// `keys[l]`: the `AliasSetMap` key of every reference to `l` (≥ 1).
    pub keys: Vec<u64>,
    /// `partners[l]`: other locations visible in the same unit that may
    /// share storage with `l` (dummies of that unit and globals).
    pub partners: Vec<Vec<LocationId>>,
    /// Key `k` (k ≥ 1) → address set, at index `k - 1`.
    sets: Vec<BitSet>,
    /// `partial[l]`: references to `l` may touch only part of its range.
    partial: Vec<bool>,
}

impl Alias {
    pub fn compute(program: &Program, call_graph: &CallGraph) -> Alias {
        let n = program.locations.len();
        let mut addresses: Vec<BitSet> = (0..n)
            .map(|l| {
                let mut s = BitSet::new(n);
                s.insert(l);
                s
            })
            .collect();
        // Dummies inherit the storage of their actuals; iterate for chains
        // of dummies passed on (and recursion).
        // Callers before callees: one pass unless there is recursion.
        let mut rank = vec![0; program.units.len()];
        for (r, u) in call_graph.bottom_up.iter().rev().enumerate() {
            rank[u.index()] = r;
        }
        let mut sites: Vec<&super::call_graph::CallSite> = call_graph.sites.iter().collect();
        sites.sort_by_key(|s| rank.get(s.caller.index()).copied().unwrap_or(0));
        let mut changed = true;
        while changed {
            changed = false;
            for site in &sites {
                let Some(callee) = program.unit(site.callee) else {
                    continue;
                };
                for (p, actual) in site.actuals.iter().enumerate() {
                    let (Some(actual), Some(dummy)) = (actual, callee.dummies.get(p)) else {
                        continue;
                    };
                    if actual == dummy || actual.index() >= n || dummy.index() >= n {
                        continue;
                    }
                    let from = addresses[actual.index()].clone();
                    changed |= addresses[dummy.index()].union_with(&from);
                }
            }
        }
        let mut partners = vec![Vec::new(); n];
        let globals: Vec<usize> = (0..n)
            .filter(|&l| program.locations[l].kind == LocationKind::Global)
            .collect();
        for unit in &program.units {
            for (i, d) in unit.dummies.iter().enumerate() {
                if d.index() >= n {
                    continue;
                }
                for e in unit.dummies.iter().skip(i + 1) {
                    if e.index() < n
                        && d != e
                        && addresses[d.index()].intersects(&addresses[e.index()])
                    {
                        partners[d.index()].push(*e);
                        partners[e.index()].push(*d);
                    }
                }
                for &g in &globals {
                    if addresses[d.index()].contains(g) {
                        partners[d.index()].push(LocationId(g as u32));
                        partners[g].push(*d);
                    }
                }
            }
        }
        for p in &mut partners {
            p.sort();
            p.dedup();
        }
        let mut by_set: HashMap<Vec<usize>, u64> = HashMap::new();
        let mut sets = Vec::new();
        let keys = addresses
            .iter()
            .map(|a| {
                *by_set.entry(a.iter().collect()).or_insert_with(|| {
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
            (Some(x), Some(y)) => x.intersects(y),
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
            for l in set.iter() {
                let addr = l as u64 + 1;
                let partial = self.partial.get(l).copied().unwrap_or(true);
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
