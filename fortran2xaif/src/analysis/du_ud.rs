//! Use-definition and definition-use chains, and definition-overwrite
//! chains, by iterative reaching definitions over each unit's blocks.
//!
//! A definition site is (statement, location); a statement defines every
//! location of its [`StmtEffects`]. Only whole definitions kill. The
//! entry of a unit defines its dummies and the globals it touches ("outside
//! the scope", written as the empty statement id in XAIF); the exit uses
//! them.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::alias::Alias;
use super::bitset::BitSet;
use super::effects::{stmt_effects, StmtEffects};
use super::ir::{LocationId, Program, StmtId, UnitId};
use super::side_effects::SideEffects;
use xaif_schema::model::{StmtIdSet, StmtIdSetMap};

/// An element of a chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ChainPoint {
    /// Before entry or after exit of the unit.
    Outside,
    Stmt(StmtId),
}

/// Chains of the whole program, keyed for the XAIF maps. Key 0 means "no
/// information" in both maps; every computed chain (even an empty one:
/// uninitialised use, dead definition) has a key ≥ 1.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DuUd {
    /// `chains[k]`: the `DUUDSetMap` set with key `k` (`chains[0]` empty).
    pub chains: Vec<Vec<ChainPoint>>,
    /// (statement, used location) → key of its ud chain.
    pub use_keys: HashMap<(StmtId, LocationId), u64>,
    /// (statement, defined location) → key of its du chain.
    pub def_keys: HashMap<(StmtId, LocationId), u64>,
    /// `do_chains[k]`: the `DOSetMap` set with key `k` (`do_chains[0]` empty).
    pub do_chains: Vec<Vec<ChainPoint>>,
    /// (statement, defined location) → key of the statements that may
    /// overwrite that definition next.
    pub do_keys: HashMap<(StmtId, LocationId), u64>,
}

/// Interns chains into keys.
#[derive(Default)]
struct Keys {
    chains: Vec<Vec<ChainPoint>>,
    index: HashMap<Vec<ChainPoint>, u64>,
}

impl Keys {
    fn new() -> Keys {
        Keys {
            chains: vec![Vec::new()],
            index: HashMap::new(),
        }
    }
    fn key(&mut self, mut chain: Vec<ChainPoint>) -> u64 {
        chain.sort();
        chain.dedup();
        if let Some(k) = self.index.get(&chain) {
            return *k;
        }
        let k = self.chains.len() as u64;
        self.chains.push(chain.clone());
        self.index.insert(chain, k);
        k
    }
}

impl DuUd {
    pub fn compute(program: &Program, side_effects: &SideEffects, alias: &Alias) -> DuUd {
        let mut ud_keys = Keys::new();
        let mut do_keys = Keys::new();
        let mut out = DuUd::default();
        // Units are independent: chain them in parallel, key them in order.
        let units: Vec<UnitChains> = (0..program.units.len())
            .into_par_iter()
            .map(|u| UnitChains::compute(program, side_effects, alias, UnitId(u as u32)))
            .collect();
        for unit in units {
            for ((stmt, loc), chain) in unit.ud {
                out.use_keys.insert((stmt, loc), ud_keys.key(chain));
            }
            for (site, chain) in unit.sites.iter().zip(unit.du) {
                if let (Some(stmt), loc) = *site {
                    out.def_keys.insert((stmt, loc), ud_keys.key(chain));
                }
            }
            for (site, chain) in unit.sites.iter().zip(unit.overwrite) {
                if let (Some(stmt), loc) = *site {
                    out.do_keys.insert((stmt, loc), do_keys.key(chain));
                }
            }
        }
        out.chains = ud_keys.chains;
        out.do_chains = do_keys.chains;
        out
    }

    /// The `du_ud` attribute of a read of `loc` by `stmt` (0: no information).
    pub fn use_key(&self, stmt: StmtId, loc: LocationId) -> u64 {
        self.use_keys.get(&(stmt, loc)).copied().unwrap_or(0)
    }

    /// The `du_ud` attribute of the definition of `loc` by `stmt`.
    pub fn def_key(&self, stmt: StmtId, loc: LocationId) -> u64 {
        self.def_keys.get(&(stmt, loc)).copied().unwrap_or(0)
    }

    /// The `do_chain` attribute of the assignment `stmt` defining `loc`.
    pub fn do_key(&self, stmt: StmtId, loc: LocationId) -> u64 {
        self.do_keys.get(&(stmt, loc)).copied().unwrap_or(0)
    }

    /// Definitions that may reach the read of `loc` by `stmt`.
    pub fn ud(&self, stmt: StmtId, loc: LocationId) -> Option<&[ChainPoint]> {
        let k = *self.use_keys.get(&(stmt, loc))?;
        self.chains.get(k as usize).map(|c| c.as_slice())
    }

    /// Reads that the definition of `loc` by `stmt` may reach.
    pub fn du(&self, stmt: StmtId, loc: LocationId) -> Option<&[ChainPoint]> {
        let k = *self.def_keys.get(&(stmt, loc))?;
        self.chains.get(k as usize).map(|c| c.as_slice())
    }

    /// Definitions that may next overwrite the definition of `loc` by `stmt`.
    pub fn overwritten_by(&self, stmt: StmtId, loc: LocationId) -> Option<&[ChainPoint]> {
        let k = *self.do_keys.get(&(stmt, loc))?;
        self.do_chains.get(k as usize).map(|c| c.as_slice())
    }

    /// The XAIF `DUUDSetMap`; `name` gives the XAIF statement id.
    pub fn duud_set_map(&self, name: impl Fn(StmtId) -> String) -> StmtIdSetMap {
        to_map(&self.chains, name)
    }

    /// The XAIF `DOSetMap`; `name` gives the XAIF statement id.
    pub fn do_set_map(&self, name: impl Fn(StmtId) -> String) -> StmtIdSetMap {
        to_map(&self.do_chains, name)
    }
}

fn to_map(chains: &[Vec<ChainPoint>], name: impl Fn(StmtId) -> String) -> StmtIdSetMap {
    StmtIdSetMap {
        sets: chains
            .iter()
            .enumerate()
            .map(|(k, chain)| StmtIdSet {
                key: k as u64,
                statement_ids: chain
                    .iter()
                    .map(|p| match p {
                        ChainPoint::Outside => String::new(),
                        ChainPoint::Stmt(s) => name(*s),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Chains of one unit before interning.
struct UnitChains {
    /// Definition sites; `None` statement = unit entry.
    sites: Vec<(Option<StmtId>, LocationId)>,
    du: Vec<Vec<ChainPoint>>,
    overwrite: Vec<Vec<ChainPoint>>,
    ud: BTreeMap<(StmtId, LocationId), Vec<ChainPoint>>,
}

impl UnitChains {
    fn compute(
        program: &Program,
        side_effects: &SideEffects,
        alias: &Alias,
        uid: UnitId,
    ) -> UnitChains {
        let unit = &program.units[uid.index()];
        let effects: Vec<Vec<StmtEffects>> = unit
            .blocks
            .iter()
            .map(|b| {
                b.stmts
                    .iter()
                    .map(|s| stmt_effects(program, side_effects, alias, uid, s))
                    .collect()
            })
            .collect();
        // Number the definition sites; entry sites first.
        let mut sites: Vec<(Option<StmtId>, LocationId)> = Vec::new();
        let mut sites_of: HashMap<LocationId, Vec<usize>> = HashMap::new();
        let mut visible: Vec<LocationId> = unit.dummies.clone();
        for e in effects.iter().flatten() {
            visible.extend(
                e.defs
                    .iter()
                    .map(|d| d.loc)
                    .chain(e.uses.iter().map(|x| x.loc))
                    .filter(|l| program.is_visible_outside(uid, *l)),
            );
        }
        visible.sort();
        visible.dedup();
        for l in &visible {
            sites_of.entry(*l).or_default().push(sites.len());
            sites.push((None, *l));
        }
        let entry_sites = sites.len();
        // site_at[b][i][j]: site of the j-th def of statement i of block b.
        let mut site_at: Vec<Vec<Vec<usize>>> = Vec::new();
        for (b, block) in unit.blocks.iter().enumerate() {
            let mut per_block = Vec::new();
            for (s, stmt) in block.stmts.iter().enumerate() {
                let mut per_stmt = Vec::new();
                for d in &effects[b][s].defs {
                    sites_of.entry(d.loc).or_default().push(sites.len());
                    per_stmt.push(sites.len());
                    sites.push((Some(stmt.id()), d.loc));
                }
                per_block.push(per_stmt);
            }
            site_at.push(per_block);
        }
        let nsites = sites.len();
        // All sites of a location, for the locations some statement kills.
        let mut kill_sets: HashMap<LocationId, BitSet> = HashMap::new();
        for d in effects.iter().flatten().flat_map(|e| &e.defs) {
            if d.kills {
                kill_sets.entry(d.loc).or_insert_with(|| {
                    sites_of
                        .get(&d.loc)
                        .map(|v| v.iter().copied().collect::<BitSet>())
                        .unwrap_or_default()
                });
            }
        }
        // Transfer through one statement.
        let step = |rd: &mut BitSet, b: usize, s: usize| {
            for (j, d) in effects[b][s].defs.iter().enumerate() {
                if let Some(k) = kill_sets.get(&d.loc).filter(|_| d.kills) {
                    rd.difference_with(k);
                }
                rd.insert(site_at[b][s][j]);
            }
        };
        let nb = unit.blocks.len();
        let preds = unit.predecessors();
        let mut rd_in = vec![BitSet::new(nsites); nb];
        let mut rd_out = vec![BitSet::new(nsites); nb];
        let mut entry = BitSet::new(nsites);
        (0..entry_sites).for_each(|s| {
            entry.insert(s);
        });
        let mut worklist: Vec<usize> = (0..nb).rev().collect();
        let mut queued = vec![true; nb];
        while let Some(b) = worklist.pop() {
            queued[b] = false;
            let mut input = if b == unit.entry.index() {
                entry.clone()
            } else {
                BitSet::new(nsites)
            };
            for p in &preds[b] {
                input.union_with(&rd_out[p.index()]);
            }
            let mut out = input.clone();
            for s in 0..unit.blocks[b].stmts.len() {
                step(&mut out, b, s);
            }
            rd_in[b] = input;
            if out != rd_out[b] {
                rd_out[b] = out;
                for s in unit.successors.get(b).map_or(&[][..], |v| v.as_slice()) {
                    if s.index() < nb && !queued[s.index()] {
                        queued[s.index()] = true;
                        worklist.push(s.index());
                    }
                }
            }
        }
        // Read the chains off the fixed point.
        let mut du = vec![Vec::new(); nsites];
        let mut overwrite = vec![Vec::new(); nsites];
        let mut ud: BTreeMap<(StmtId, LocationId), Vec<ChainPoint>> = BTreeMap::new();
        let point = |site: usize| match sites[site].0 {
            None => ChainPoint::Outside,
            Some(s) => ChainPoint::Stmt(s),
        };
        for (b, block) in unit.blocks.iter().enumerate() {
            let mut rd = rd_in[b].clone();
            for (s, stmt) in block.stmts.iter().enumerate() {
                let id = stmt.id();
                for u in &effects[b][s].uses {
                    let chain = ud.entry((id, u.loc)).or_default();
                    for &site in sites_of.get(&u.loc).map_or(&[][..], |v| v.as_slice()) {
                        if rd.contains(site) {
                            chain.push(point(site));
                            du[site].push(ChainPoint::Stmt(id));
                        }
                    }
                }
                for d in &effects[b][s].defs {
                    for &site in sites_of.get(&d.loc).map_or(&[][..], |v| v.as_slice()) {
                        if rd.contains(site) {
                            overwrite[site].push(ChainPoint::Stmt(id));
                        }
                    }
                }
                step(&mut rd, b, s);
            }
        }
        if let Some(exit) = rd_out.get(unit.exit.index()) {
            for site in exit.iter() {
                if program.is_visible_outside(uid, sites[site].1) {
                    du[site].push(ChainPoint::Outside);
                    overwrite[site].push(ChainPoint::Outside);
                }
            }
        }
        UnitChains {
            sites,
            du,
            overwrite,
            ud,
        }
    }
}
