//! Use-definition and definition-use chains, and definition-overwrite
//! chains, by iterative reaching definitions over each unit's blocks.
//!
//! A definition site is (statement, location); a statement defines every
//! location of its [`StmtEffects`]. Whole definitions kill every earlier
//! definition of their location; an array element with constant subscripts
//! (`a(3)`) kills the earlier definitions of that element, and is never
//! taken to reach a read of another constant element (`a(4)`). Other
//! element definitions (`a(i)`) are may-definitions of the whole array. A
//! call kills what its callee certainly overwrites only as far as the
//! dummy reaches (`effects.rs`): `call set(a(3))` with a scalar dummy is a
//! definition of the element `a(3)`, `call fill(a(:, j))` a partial one. The
//! entry of a unit defines its dummies and the globals it touches ("outside
//! the scope", written as the empty statement id in XAIF); the exit uses
//! them.

use std::collections::{BTreeMap, HashMap};

use rayon::prelude::*;

use super::alias::Alias;
use super::bitset::BitSet;
use super::effects::{stmt_effects, StmtEffects};
use super::ir::{ElementId, LocationId, Program, StmtId, UnitId};
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

/// Whose chains [`DuUd::compute_for`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainsOf {
    /// Every location's.
    Everything,
    /// Scalars' only: an array is one atom whose element definitions do not
    /// kill, so its chains hold every earlier definition of the array
    /// (quadratic in a unit's length) and XAIF gets "no information" (key
    /// 0) for them anyway (`emit_xaif.rs`). Their reads and definitions
    /// then have no chain, and no key.
    Scalars,
}

impl DuUd {
    pub fn compute(program: &Program, side_effects: &SideEffects, alias: &Alias) -> DuUd {
        DuUd::compute_for(program, side_effects, alias, ChainsOf::Everything)
    }

    /// The chains of the locations `which` selects; those of the others
    /// are absent. A selected location's chains are the same whatever the
    /// choice (sites of other locations never enter them).
    pub fn compute_for(
        program: &Program,
        side_effects: &SideEffects,
        alias: &Alias,
        which: ChainsOf,
    ) -> DuUd {
        let mut ud_keys = Keys::new();
        let mut do_keys = Keys::new();
        let mut out = DuUd::default();
        // Units are independent: chain them in parallel, key them in order.
        let units: Vec<UnitChains> = (0..program.units.len())
            .into_par_iter()
            .map(|u| UnitChains::compute(program, side_effects, alias, UnitId(u as u32), which))
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
                        ChainPoint::Outside => Default::default(),
                        ChainPoint::Stmt(s) => name(*s).into(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Definition sites by location and by constant-subscript element.
#[derive(Default)]
struct SiteIndex {
    /// Every site of a location.
    all: HashMap<LocationId, Vec<usize>>,
    /// Sites that define a location without a known element (whole
    /// definitions, variable subscripts, calls, the unit entry).
    unknown_element: HashMap<LocationId, Vec<usize>>,
    /// Sites that define one constant-subscript element.
    element: HashMap<(LocationId, ElementId), Vec<usize>>,
}

impl SiteIndex {
    fn add(&mut self, site: usize, loc: LocationId, element: Option<ElementId>) {
        self.all.entry(loc).or_default().push(site);
        match element {
            None => self.unknown_element.entry(loc).or_default().push(site),
            Some(e) => self.element.entry((loc, e)).or_default().push(site),
        }
    }

    fn all(&self, loc: LocationId) -> &[usize] {
        self.all.get(&loc).map_or(&[][..], |v| v.as_slice())
    }

    fn of_element(&self, loc: LocationId, e: ElementId) -> &[usize] {
        self.element
            .get(&(loc, e))
            .map_or(&[][..], |v| v.as_slice())
    }

    /// The sites that may define what a reference to `element` of `loc`
    /// touches: all of them for an unknown element; for a constant
    /// element, those of that element and those of unknown elements.
    fn for_each_candidate(
        &self,
        loc: LocationId,
        element: Option<ElementId>,
        mut f: impl FnMut(usize),
    ) {
        match element {
            None => self.all(loc).iter().copied().for_each(f),
            Some(e) => {
                let unknown = self
                    .unknown_element
                    .get(&loc)
                    .map_or(&[][..], |v| v.as_slice());
                unknown.iter().copied().for_each(&mut f);
                self.of_element(loc, e).iter().copied().for_each(f);
            }
        }
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
        which: ChainsOf,
    ) -> UnitChains {
        let unit = &program.units[uid.index()];
        let chained = |l: LocationId| {
            which == ChainsOf::Everything || !program.location(l).is_some_and(|info| info.is_array)
        };
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
        let mut index = SiteIndex::default();
        let mut visible: Vec<LocationId> = unit.dummies.clone();
        for e in effects.iter().flatten() {
            visible.extend(
                e.defs
                    .iter()
                    .map(|d| d.loc)
                    .chain(e.uses.iter().map(|x| x.loc))
                    .filter(|l| program.is_visible_outside(uid, *l) && chained(*l)),
            );
        }
        visible.sort();
        visible.dedup();
        for l in &visible {
            index.add(sites.len(), *l, None);
            sites.push((None, *l));
        }
        let entry_sites = sites.len();
        // site_at[b][i][j]: site of the j-th def of statement i of block b
        // (none for a location without chains).
        let mut site_at: Vec<Vec<Vec<Option<usize>>>> = Vec::new();
        for (b, block) in unit.blocks.iter().enumerate() {
            let mut per_block = Vec::new();
            for (s, stmt) in block.stmts.iter().enumerate() {
                let mut per_stmt = Vec::new();
                for d in &effects[b][s].defs {
                    if !chained(d.loc) {
                        per_stmt.push(None);
                        continue;
                    }
                    index.add(sites.len(), d.loc, d.element);
                    per_stmt.push(Some(sites.len()));
                    sites.push((Some(stmt.id()), d.loc));
                }
                per_block.push(per_stmt);
            }
            site_at.push(per_block);
        }
        let nsites = sites.len();
        // What a definition kills: every site of the location for a whole
        // definition, the earlier sites of the same element for a
        // constant-subscript element definition, nothing otherwise.
        let mut kill_sets: HashMap<(LocationId, Option<ElementId>), BitSet> = HashMap::new();
        for d in effects.iter().flatten().flat_map(|e| &e.defs) {
            if !chained(d.loc) {
                continue;
            }
            let key = if d.kills {
                (d.loc, None)
            } else if d.element.is_some() {
                (d.loc, d.element)
            } else {
                continue;
            };
            kill_sets.entry(key).or_insert_with(|| {
                let sites = match key.1 {
                    None => index.all(key.0),
                    Some(e) => index.of_element(key.0, e),
                };
                sites.iter().copied().collect::<BitSet>()
            });
        }
        // Transfer through one statement.
        let step = |rd: &mut BitSet, b: usize, s: usize| {
            for (j, d) in effects[b][s].defs.iter().enumerate() {
                let Some(site) = site_at[b][s][j] else {
                    continue;
                };
                let key = (d.loc, if d.kills { None } else { d.element });
                if let Some(k) = kill_sets
                    .get(&key)
                    .filter(|_| d.kills || d.element.is_some())
                {
                    rd.difference_with(k);
                }
                rd.insert(site);
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
                for u in effects[b][s].uses.iter().filter(|u| chained(u.loc)) {
                    let chain = ud.entry((id, u.loc)).or_default();
                    index.for_each_candidate(u.loc, u.element, |site| {
                        if rd.contains(site) {
                            chain.push(point(site));
                            du[site].push(ChainPoint::Stmt(id));
                        }
                    });
                }
                for d in effects[b][s].defs.iter().filter(|d| chained(d.loc)) {
                    index.for_each_candidate(d.loc, d.element, |site| {
                        if rd.contains(site) {
                            overwrite[site].push(ChainPoint::Stmt(id));
                        }
                    });
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
