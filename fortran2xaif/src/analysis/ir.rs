//! The language-independent input of the analyses: program units as block
//! control flow graphs over abstract storage locations.
//!
//! The front end builds this from its own control flow graphs. Conventions
//! the analyses rely on (see `docs/analyses.md`):
//! - one `LocationId` per variable; an array is one atom;
//! - a local with `SAVE`/`DATA` persists across calls and is given kind
//!   [`LocationKind::Global`] (it behaves like a variable nobody else sees);
//! - statement ids are unique in the whole program; conditions of branches
//!   and loops, and loop initialisation/update, appear as statements
//!   (`Opaque` with only uses, or `Assign`) in the block that evaluates them;
//! - positions are 0-based indices into `Unit::dummies` and `Stmt::Call::actuals`;
//! - an actual argument names a location and says how much of it is passed
//!   ([`ActualPart`]): a callee that overwrites its dummy overwrites only
//!   that much of the caller's variable.

/// Index into `Program::locations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocationId(pub u32);

/// Index into `Program::units`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct UnitId(pub u32);

/// Index into `Unit::blocks` (and `Unit::successors`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct BlockId(pub u32);

/// A statement id, unique in the program; the front end maps it to the XAIF
/// `statement_id` string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StmtId(pub u32);

impl LocationId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl UnitId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl BlockId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The whole program: every unit and every storage location.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Program {
    pub units: Vec<Unit>,
    pub locations: Vec<LocationInfo>,
    /// Global locations varied and useful at every point whatever the
    /// statements say: the messages of MPI calls, which another process
    /// sends from or receives into at a point this process's control flow
    /// does not order (a receive in the root's branch gets what the other
    /// ranks' branch sent).
    pub always_active: Vec<LocationId>,
}

/// Where a location lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocationKind {
    /// A local variable of `unit` (fresh on every call).
    Local { unit: UnitId },
    /// Dummy argument number `position` (0-based) of `unit`.
    Dummy { unit: UnitId, position: usize },
    /// Module variable, common block member, saved local.
    Global,
}

/// One storage location (variable).
#[derive(Debug, Clone, PartialEq)]
pub struct LocationInfo {
    pub name: String,
    pub kind: LocationKind,
    /// Real, double precision or complex: can carry a derivative. Integers,
    /// logicals and characters never do.
    pub differentiable_type: bool,
    /// Arrays are atoms: an element definition is a partial definition.
    pub is_array: bool,
}

/// One subroutine (or the main program).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unit {
    pub name: String,
    /// The dummy arguments in order; each has kind `Dummy` for this unit.
    pub dummies: Vec<LocationId>,
    pub blocks: Vec<Block>,
    /// `successors[b]`: the control flow successors of block `b`.
    pub successors: Vec<Vec<BlockId>>,
    pub entry: BlockId,
    pub exit: BlockId,
}

/// A basic block: statements in execution order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
}

/// A definition of a location by a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Def {
    pub loc: LocationId,
    /// True when the statement certainly overwrites the whole location
    /// (scalar assignment); false for a may/partial definition (array
    /// element assignment).
    pub kills: bool,
    /// The array element written, when every subscript is a constant:
    /// element-precise reaching definitions (a constant-subscript
    /// definition kills earlier ones of the same element and never reaches
    /// a read of another constant element).
    pub element: Option<ElementId>,
}

/// Identity of one array element with constant subscripts, e.g. `a(3, 1)`:
/// equal ids on the same location mean the same element; different ids,
/// different elements. Interned by the front end's lowering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ElementId(pub u32);

impl Def {
    /// The whole location is overwritten.
    pub fn whole(loc: LocationId) -> Def {
        Def {
            loc,
            kills: true,
            element: None,
        }
    }
    /// Part of the location (an array element) may be overwritten.
    pub fn partial(loc: LocationId) -> Def {
        Def {
            loc,
            kills: false,
            element: None,
        }
    }
    /// The array element `element` of `loc` is overwritten.
    pub fn element(loc: LocationId, element: Option<ElementId>) -> Def {
        Def {
            element,
            ..Def::partial(loc)
        }
    }
}

/// A read of a location by an assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Use {
    pub loc: LocationId,
    /// False when the value only feeds integer, index, comparison or
    /// passive-intrinsic computations (`i` in `y = x(i)`, `x` in `int(x)`).
    pub differentiable: bool,
    /// The array element read, when every subscript is a constant.
    pub element: Option<ElementId>,
}

impl Use {
    /// A use through which derivatives flow.
    pub fn diff(loc: LocationId) -> Use {
        Use {
            loc,
            differentiable: true,
            element: None,
        }
    }
    /// A use that only feeds address, integer or passive computations.
    pub fn passive(loc: LocationId) -> Use {
        Use {
            loc,
            differentiable: false,
            element: None,
        }
    }
}

/// How much of its variable an actual argument passes. The analyses need
/// it because a callee's certain overwrite of its dummy is a certain
/// overwrite of the caller's variable only when the dummy stands for all of
/// it; otherwise the rest of the variable keeps its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActualPart {
    /// The variable itself, all of which the dummy stands for (`call
    /// f(a)` with a scalar or an assumed-shape dummy). An array passed to
    /// an explicit-shape or assumed-size dummy may be longer than the
    /// dummy (sequence association): that is a `Section`.
    Whole,
    /// One array element (`call f(a(i))`), with its id when every
    /// subscript is a constant. Passed to an array dummy it is the first
    /// element of a section of unknown length (sequence association).
    Element(Option<ElementId>),
    /// An array section or a substring (`call f(a(:, j))`, `call f(c(1:3))`).
    Section,
}

/// Who a call calls.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Callee {
    /// A unit of this program.
    Unit(UnitId),
    /// A routine we have no body for: assumed to read and may-define all its
    /// actual arguments, each output depending on every input, and to touch
    /// no globals.
    External(String),
}

/// A statement of the canonical form.
#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `def = f(uses)`.
    Assign {
        id: StmtId,
        def: Def,
        uses: Vec<Use>,
    },
    /// `call callee(actuals)`. `actuals[p]` is the variable passed at
    /// position `p`; `None` for a constant or an expression. `parts[p]`
    /// says how much of that variable is passed (same length as
    /// `actuals`; `Whole` where the actual is `None`).
    Call {
        id: StmtId,
        callee: Callee,
        actuals: Vec<Option<LocationId>>,
        parts: Vec<ActualPart>,
    },
    /// I/O, allocation, conditions, anything else: reads `uses`, defines
    /// `defs` without any derivative (a `read(*,*) x` kills x's variedness).
    Opaque {
        id: StmtId,
        defs: Vec<Def>,
        uses: Vec<LocationId>,
    },
}

impl Stmt {
    pub fn id(&self) -> StmtId {
        match self {
            Stmt::Assign { id, .. } | Stmt::Call { id, .. } | Stmt::Opaque { id, .. } => *id,
        }
    }
}

/// The differentiation request: independents and dependents of `top`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seeds {
    pub top: UnitId,
    pub independents: Vec<LocationId>,
    pub dependents: Vec<LocationId>,
}

/// What is wrong with a program handed to the analyses (`PartsLength`: a
/// call whose `parts` and `actuals` differ in length).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IrError {
    LocationOutOfRange { unit: UnitId, loc: LocationId },
    UnitOutOfRange { unit: UnitId, callee: UnitId },
    BlockOutOfRange { unit: UnitId, block: BlockId },
    SuccessorsLength { unit: UnitId },
    DummyMismatch { unit: UnitId, position: usize },
    DuplicateStmtId { stmt: StmtId },
    PartsLength { stmt: StmtId },
    SeedOutOfRange,
}

impl Program {
    pub fn location(&self, loc: LocationId) -> Option<&LocationInfo> {
        self.locations.get(loc.index())
    }

    pub fn unit(&self, unit: UnitId) -> Option<&Unit> {
        self.units.get(unit.index())
    }

    /// Can `loc` ever carry a derivative?
    pub fn is_differentiable(&self, loc: LocationId) -> bool {
        self.location(loc).is_some_and(|l| l.differentiable_type)
    }

    /// Is `loc` visible to callers of `unit` (one of its dummies, or global)?
    pub fn is_visible_outside(&self, unit: UnitId, loc: LocationId) -> bool {
        match self.location(loc).map(|l| l.kind) {
            Some(LocationKind::Global) => true,
            Some(LocationKind::Dummy { unit: u, .. }) => u == unit,
            _ => false,
        }
    }

    /// Check every id; the analyses assume a program without errors.
    pub fn validate(&self, seeds: &Seeds) -> Vec<IrError> {
        let mut errors = Vec::new();
        let nloc = self.locations.len();
        let mut seen = std::collections::HashSet::new();
        for (u, unit) in self.units.iter().enumerate() {
            let uid = UnitId(u as u32);
            let loc_ok = |l: LocationId, errors: &mut Vec<IrError>| {
                if l.index() >= nloc {
                    errors.push(IrError::LocationOutOfRange { unit: uid, loc: l });
                }
            };
            for (p, d) in unit.dummies.iter().enumerate() {
                match self.location(*d).map(|l| l.kind) {
                    Some(LocationKind::Dummy { unit: du, position })
                        if du == uid && position == p => {}
                    _ => errors.push(IrError::DummyMismatch {
                        unit: uid,
                        position: p,
                    }),
                }
            }
            if unit.successors.len() != unit.blocks.len() {
                errors.push(IrError::SuccessorsLength { unit: uid });
            }
            let nb = unit.blocks.len();
            for b in [unit.entry, unit.exit]
                .into_iter()
                .chain(unit.successors.iter().flatten().copied())
            {
                if b.index() >= nb {
                    errors.push(IrError::BlockOutOfRange {
                        unit: uid,
                        block: b,
                    });
                }
            }
            for stmt in unit.blocks.iter().flat_map(|b| &b.stmts) {
                if !seen.insert(stmt.id()) {
                    errors.push(IrError::DuplicateStmtId { stmt: stmt.id() });
                }
                match stmt {
                    Stmt::Assign { def, uses, .. } => {
                        loc_ok(def.loc, &mut errors);
                        uses.iter().for_each(|x| loc_ok(x.loc, &mut errors));
                    }
                    Stmt::Call {
                        id,
                        callee,
                        actuals,
                        parts,
                    } => {
                        if parts.len() != actuals.len() {
                            errors.push(IrError::PartsLength { stmt: *id });
                        }
                        if let Callee::Unit(c) = callee {
                            if c.index() >= self.units.len() {
                                errors.push(IrError::UnitOutOfRange {
                                    unit: uid,
                                    callee: *c,
                                });
                            }
                        }
                        actuals
                            .iter()
                            .flatten()
                            .for_each(|x| loc_ok(*x, &mut errors));
                    }
                    Stmt::Opaque { defs, uses, .. } => {
                        defs.iter().for_each(|x| loc_ok(x.loc, &mut errors));
                        uses.iter().for_each(|x| loc_ok(*x, &mut errors));
                    }
                }
            }
        }
        if seeds.top.index() >= self.units.len()
            || seeds
                .independents
                .iter()
                .chain(&seeds.dependents)
                .any(|l| l.index() >= nloc)
        {
            errors.push(IrError::SeedOutOfRange);
        }
        errors
    }
}

impl Unit {
    /// `predecessors[b]`: blocks with an edge to `b`.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for (b, succs) in self.successors.iter().enumerate() {
            for s in succs {
                if let Some(p) = preds.get_mut(s.index()) {
                    p.push(BlockId(b as u32));
                }
            }
        }
        preds
    }
}
