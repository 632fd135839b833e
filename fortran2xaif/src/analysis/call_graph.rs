//! Call graph: who calls whom, at which statements, and which units recurse.

use super::ir::{Callee, LocationId, Program, Stmt, StmtId, UnitId};

/// One call of a program unit.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSite {
    pub caller: UnitId,
    pub stmt: StmtId,
    pub callee: UnitId,
    pub actuals: Vec<Option<LocationId>>,
}

/// Caller → callee relation with the call sites behind each edge.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallGraph {
    /// `callees[u]`: units called by `u`, sorted, without duplicates.
    pub callees: Vec<Vec<UnitId>>,
    /// `callers[u]`: units calling `u`, sorted, without duplicates.
    pub callers: Vec<Vec<UnitId>>,
    /// `externals[u]`: names of routines without a body called by `u`.
    pub externals: Vec<Vec<String>>,
    /// Every call of a unit of the program, in program order.
    pub sites: Vec<CallSite>,
    /// `sites_calling[u]`: indices into `sites` of the calls of `u`.
    pub sites_calling: Vec<Vec<usize>>,
    /// Groups of mutually recursive units (a single unit that calls itself
    /// is a group of one).
    pub recursive: Vec<Vec<UnitId>>,
    /// All units, callees before callers (inside a recursive group the
    /// order is arbitrary).
    pub bottom_up: Vec<UnitId>,
}

impl CallGraph {
    pub fn build(program: &Program) -> CallGraph {
        let n = program.units.len();
        let mut g = CallGraph {
            callees: vec![Vec::new(); n],
            callers: vec![Vec::new(); n],
            externals: vec![Vec::new(); n],
            sites_calling: vec![Vec::new(); n],
            ..CallGraph::default()
        };
        for (u, unit) in program.units.iter().enumerate() {
            let caller = UnitId(u as u32);
            for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
                let Stmt::Call {
                    id,
                    callee,
                    actuals,
                    ..
                } = stmt
                else {
                    continue;
                };
                match callee {
                    Callee::Unit(c) if c.index() < n => {
                        g.callees[u].push(*c);
                        g.callers[c.index()].push(caller);
                        g.sites_calling[c.index()].push(g.sites.len());
                        g.sites.push(CallSite {
                            caller,
                            stmt: *id,
                            callee: *c,
                            actuals: actuals.clone(),
                        });
                    }
                    Callee::Unit(_) => {}
                    Callee::External(name) => g.externals[u].push(name.clone()),
                }
            }
        }
        for list in g.callees.iter_mut().chain(g.callers.iter_mut()) {
            list.sort();
            list.dedup();
        }
        for list in &mut g.externals {
            list.sort();
            list.dedup();
        }
        let sccs = strongly_connected(&g.callees);
        for scc in &sccs {
            let u = scc[0];
            if scc.len() > 1 || g.callees[u.index()].contains(&u) {
                let mut group = scc.clone();
                group.sort();
                g.recursive.push(group);
            }
        }
        // Tarjan emits components in reverse topological order of the
        // condensation: callees first.
        g.bottom_up = sccs.into_iter().flatten().collect();
        g
    }

    /// Is `unit` part of a recursive cycle?
    pub fn is_recursive(&self, unit: UnitId) -> bool {
        self.recursive.iter().any(|g| g.contains(&unit))
    }
}

/// Tarjan's algorithm without recursion; components come out callees first.
fn strongly_connected(succ: &[Vec<UnitId>]) -> Vec<Vec<UnitId>> {
    let n = succ.len();
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut out = Vec::new();
    let mut next = 0;
    for root in 0..n {
        if index[root] != UNSEEN {
            continue;
        }
        // (node, next successor position)
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if let Some(w) = succ[v].get(*pos).map(|w| w.index()) {
                *pos += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp.push(UnitId(w as u32));
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}
