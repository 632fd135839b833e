//! Random Fortran call trees for the joint-mode adjoint test
//! (`tests/tests/joint_call_trees.rs`): seeded programs written the way
//! scientists write models, on which `-m rj` must agree with `-m rs`,
//! `-m f` and finite differences.
//!
//! A program is a module `tree_m` holding the model state (an active real
//! array `st`, an active real scalar `acc`, a passive integer counter `cnt`)
//! and 2–6 module subroutines `r1`, `r2`, … forming a call tree of depth
//! 1–4 below `subroutine head(x, y)` (head, outside the module, calls the
//! level-1 routines in a time loop, which call level-2 routines, …; calls
//! only go one level down, so there is no recursion). Routines take a random
//! mix of `intent(in|out|inout)` real scalars, explicit-shape arrays `a(n)`,
//! integer indices and loop bounds, integer counters and passive real
//! coefficients. The bodies assign smooth bounded expressions (convex
//! combinations of sin, tanh, x/(1+x²), …, so values stay O(1) and y is a
//! smooth function of x), loop, branch on passive integers and reals, and
//! call the next level with arrays passed whole, as sections and as
//! elements, with loop indices as index arguments and with passive
//! coefficients that change between calls — what a joint-mode reverse sweep
//! must restore before it re-runs a callee.
//!
//! Every intent(out) dummy is assigned before anything reads it, every local
//! is initialised, every subscript provably in bounds (the generator tracks
//! the range of every integer it uses as an index), and no two actual
//! arguments of a call, nor an actual and a module variable, alias.
//!
//! Everything is drawn from [`Rng`] (splitmix64) seeded by the caller: the
//! same seed always gives the same program.

use std::collections::BTreeSet;
use std::fmt::Write;

/// Deterministic pseudo-random numbers (splitmix64).
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng {
            state: seed ^ 0x5851_f42d_4c95_7f2d,
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// Intent of a real dummy argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    In,
    Out,
    InOut,
}

impl Intent {
    fn fortran(self) -> &'static str {
        match self {
            Intent::In => "in",
            Intent::Out => "out",
            Intent::InOut => "inout",
        }
    }
}

/// What a dummy argument is and how the routine uses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DummyKind {
    /// Active `real(8)` scalar.
    Real(Intent),
    /// `real(8)` explicit-shape array `a(n)`.
    Array(Intent),
    /// `integer, intent(in) :: n`, the length of the array dummies.
    Size,
    /// `integer, intent(in)`, an index or loop bound with a value in `1..=max`.
    Index { max: usize },
    /// `integer, intent(inout)`, a counter the routine increments and
    /// branches on the parity of.
    Counter,
    /// Passive `real(8), intent(in)` coefficient with a value in (0, 2).
    Coef,
}

#[derive(Debug, Clone)]
pub struct Dummy {
    pub name: String,
    pub kind: DummyKind,
}

/// One module subroutine of the tree.
#[derive(Debug, Clone)]
pub struct Routine {
    pub name: String,
    /// 1 for the routines head calls, 2 for their callees, ...
    pub level: usize,
    /// Length of the array dummies (the value of `n`); 0 without arrays.
    pub len: usize,
    pub dummies: Vec<Dummy>,
    /// Indices into [`CallTree::routines`] of the routines this one calls.
    pub callees: BTreeSet<usize>,
}

/// A generated program: module `tree_m` with the routines, then `head`.
#[derive(Debug, Clone)]
pub struct CallTree {
    pub seed: u64,
    pub nx: usize,
    pub ny: usize,
    /// The input point.
    pub x0: Vec<f64>,
    pub routines: Vec<Routine>,
    /// Indices of the routines head calls.
    pub head_callees: BTreeSet<usize>,
    /// The Fortran source (free form, one file).
    pub source: String,
}

/// File name of the generated source in an example directory.
pub const SOURCE_FILE: &str = "tree.f90";
/// Length of the module's state array `st`.
const NS: usize = 5;
/// Largest number of times one call site may run per call of its routine.
const MAX_TRIPS: usize = 9;

impl CallTree {
    /// The program for `seed`.
    pub fn generate(seed: u64) -> CallTree {
        Generator::new(seed, false).program()
    }

    /// The program for `seed` with part of the module state in a variable
    /// of derived type, `bx` (components `bx%s`, `bx%a(ns)`, `bx%k`), read
    /// and written like `acc`, `st` and `cnt`: joint-mode checkpoints must
    /// store a module variable's components.
    pub fn generate_with_derived_state(seed: u64) -> CallTree {
        Generator::new(seed, true).program()
    }

    /// Length of the longest call chain below head (head's callees are level 1).
    pub fn depth(&self) -> usize {
        self.routines.iter().map(|r| r.level).max().unwrap_or(0)
    }

    /// Indices of the routines reachable from head through `callees`.
    pub fn reachable(&self) -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut work: Vec<usize> = self.head_callees.iter().copied().collect();
        while let Some(r) = work.pop() {
            if seen.insert(r) {
                work.extend(self.routines[r].callees.iter().copied());
            }
        }
        seen
    }

    /// `example.toml` for the program (see `manifest.rs`).
    pub fn manifest(&self) -> String {
        let x0: Vec<String> = self.x0.iter().map(|v| format!("{v:?}")).collect();
        format!(
            "# random call tree, seed {} (tests/src/call_trees.rs)\nfiles = [\"{SOURCE_FILE}\"]\nnx = {}\nny = {}\nx0 = [{}]\n",
            self.seed,
            self.nx,
            self.ny,
            x0.join(", ")
        )
    }
}

/// An active real array visible in a body.
#[derive(Debug, Clone)]
struct ArrayVar {
    name: String,
    len: usize,
    writable: bool,
    /// Module variables are never passed as actual arguments (the callee
    /// sees them directly: passing them would alias).
    module: bool,
}

/// An active real scalar visible in a body.
#[derive(Debug, Clone)]
struct ScalarVar {
    name: String,
    writable: bool,
    module: bool,
}

/// A passive integer whose value is known to lie in `1..=hi`.
#[derive(Debug, Clone)]
struct IntVar {
    name: String,
    hi: usize,
    /// A `do` variable (preferred as index argument inside its loop).
    loop_var: bool,
    /// May be updated by `name = 1 + mod(name, hi)`.
    cycles: bool,
}

/// A passive real in (0, 2).
#[derive(Debug, Clone)]
struct CoefVar {
    name: String,
    writable: bool,
}

/// What a body can see and what it has declared so far.
#[derive(Debug, Default)]
struct Scope {
    /// 0 for head.
    level: usize,
    /// Value of `n`, 0 if the routine has no arrays.
    len: usize,
    scalars: Vec<ScalarVar>,
    arrays: Vec<ArrayVar>,
    ints: Vec<IntVar>,
    /// Passive integers without bound (only their parity is read);
    /// `(name, module)`.
    counters: Vec<(String, bool)>,
    coefs: Vec<CoefVar>,
    loop_depth: usize,
    max_loop_depth: usize,
    /// Nesting of loops and branches.
    nesting: usize,
    /// Upper bound of how often the current statement runs per call.
    trips: usize,
    /// Declarations of the temporaries made for calls.
    temporaries: Vec<String>,
    /// Indices of the routines called.
    callees: BTreeSet<usize>,
}

impl Scope {
    fn loop_var(&self) -> String {
        format!("j{}", self.loop_depth + 1)
    }
}

struct Generator {
    rng: Rng,
    seed: u64,
    routines: Vec<Routine>,
    /// The module also holds `bx` of type `box_t`.
    derived_state: bool,
}

const WEIGHTS: [(&str, &str); 3] = [("0.5d0", "0.5d0"), ("0.7d0", "0.3d0"), ("0.8d0", "0.2d0")];

impl Generator {
    fn new(seed: u64, derived_state: bool) -> Self {
        Generator {
            rng: Rng::new(seed),
            seed,
            routines: Vec::new(),
            derived_state,
        }
    }

    fn program(mut self) -> CallTree {
        let nx = self.rng.range(3, 6);
        let ny = self.rng.range(2, 3);
        let x0: Vec<f64> = (0..nx)
            .map(|_| (20 + self.rng.below(101)) as f64 / 100.0)
            .collect();
        self.signatures();
        let mut module = String::new();
        let mut bodies = Vec::new();
        for r in 0..self.routines.len() {
            let (text, callees) = self.routine(r);
            self.routines[r].callees = callees;
            bodies.push(text);
        }
        let (head, head_callees) = self.head(nx, ny);
        let derived = if self.derived_state {
            "  type :: box_t
    double precision :: s
    double precision :: a(ns)
    integer :: k
  end type box_t
  type(box_t) :: bx
"
        } else {
            ""
        };
        let _ = write!(
            module,
            "! Random call tree, seed {seed} (generated by tests/src/call_trees.rs).
module tree_m
  implicit none
  integer, parameter :: ns = {NS}
  double precision :: st(ns)
  double precision :: acc
  integer :: cnt
{derived}contains
{bodies}end module tree_m

{head}",
            seed = self.seed,
            bodies = bodies.join("\n"),
        );
        CallTree {
            seed: self.seed,
            nx,
            ny,
            x0,
            routines: self.routines,
            head_callees,
            source: wrap_long_lines(&module),
        }
    }

    /// Levels and dummy arguments of all routines.
    fn signatures(&mut self) {
        let count = self.rng.range(2, 6);
        let depth = self.rng.range(1, count.min(4));
        // Every level gets one routine, the rest are spread at random.
        let mut levels: Vec<usize> = (1..=depth).collect();
        while levels.len() < count {
            levels.push(self.rng.range(1, depth));
        }
        levels.sort_unstable();
        for (i, level) in levels.into_iter().enumerate() {
            let routine = self.signature(i + 1, level);
            self.routines.push(routine);
        }
    }

    fn signature(&mut self, number: usize, level: usize) -> Routine {
        let rng = &mut self.rng;
        let len = if rng.chance(0.75) { rng.range(2, 5) } else { 0 };
        let mut dummies = Vec::new();
        let intent = |rng: &mut Rng| match rng.below(10) {
            0..=3 => Intent::In,
            4..=5 => Intent::Out,
            _ => Intent::InOut,
        };
        if len > 0 {
            for i in 1..=rng.range(1, 2) {
                dummies.push(Dummy {
                    name: format!("a{i}"),
                    kind: DummyKind::Array(intent(rng)),
                });
            }
        }
        let scalars = if len > 0 {
            rng.range(0, 2)
        } else {
            rng.range(1, 2)
        };
        for i in 1..=scalars {
            dummies.push(Dummy {
                name: format!("s{i}"),
                kind: DummyKind::Real(intent(rng)),
            });
        }
        let indices = match rng.below(10) {
            0 => 0,
            1..=6 => 1,
            _ => 2,
        };
        for i in 1..=indices {
            let cap = if len > 0 { len.min(4) } else { 4 };
            dummies.push(Dummy {
                name: format!("k{i}"),
                kind: DummyKind::Index {
                    max: rng.range(2, cap),
                },
            });
        }
        if rng.chance(0.65) {
            dummies.push(Dummy {
                name: "c1".into(),
                kind: DummyKind::Coef,
            });
        }
        if rng.chance(0.3) {
            dummies.push(Dummy {
                name: "m1".into(),
                kind: DummyKind::Counter,
            });
        }
        rng.shuffle(&mut dummies);
        if len > 0 {
            dummies.insert(
                0,
                Dummy {
                    name: "n".into(),
                    kind: DummyKind::Size,
                },
            );
        }
        Routine {
            name: format!("r{number}"),
            level,
            len,
            dummies,
            callees: BTreeSet::new(),
        }
    }

    fn at_level(&self, level: usize) -> Vec<usize> {
        (0..self.routines.len())
            .filter(|&r| self.routines[r].level == level)
            .collect()
    }

    /// The module variables, visible everywhere.
    fn module_scope(&self, level: usize) -> Scope {
        let mut scope = Scope {
            level,
            scalars: vec![ScalarVar {
                name: "acc".into(),
                writable: true,
                module: true,
            }],
            arrays: vec![ArrayVar {
                name: "st".into(),
                len: NS,
                writable: true,
                module: true,
            }],
            counters: vec![("cnt".into(), true)],
            trips: 1,
            ..Scope::default()
        };
        if self.derived_state {
            scope.scalars.push(ScalarVar {
                name: "bx%s".into(),
                writable: true,
                module: true,
            });
            scope.arrays.push(ArrayVar {
                name: "bx%a".into(),
                len: NS,
                writable: true,
                module: true,
            });
            scope.counters.push(("bx%k".into(), true));
        }
        scope
    }

    /// Routines at `level + 1` this routine must call: each routine of the
    /// next level gets one parent chosen at random among this level's.
    fn required_callees(&self, routine: Option<usize>) -> Vec<usize> {
        let Some(r) = routine else {
            return self.at_level(1);
        };
        let parents = self.at_level(self.routines[r].level);
        self.at_level(self.routines[r].level + 1)
            .into_iter()
            .filter(|&child| {
                // The parent depends on seed and child only, not on the order
                // the routines are generated in.
                let mut pick = Rng::new(self.seed.wrapping_mul(31).wrapping_add(child as u64));
                *pick.pick(&parents) == r
            })
            .collect()
    }

    fn routine(&mut self, r: usize) -> (String, BTreeSet<usize>) {
        let routine = self.routines[r].clone();
        let mut scope = self.module_scope(routine.level);
        scope.len = routine.len;
        let mut decls = String::new();
        let mut init = String::new();
        let mut deferred = Vec::new();
        for d in &routine.dummies {
            match &d.kind {
                DummyKind::Size => {
                    let _ = writeln!(decls, "    integer, intent(in) :: n");
                }
                DummyKind::Array(intent) => {
                    let _ = writeln!(
                        decls,
                        "    double precision, intent({}) :: {}(n)",
                        intent.fortran(),
                        d.name
                    );
                    let var = ArrayVar {
                        name: d.name.clone(),
                        len: routine.len,
                        writable: *intent != Intent::In,
                        module: false,
                    };
                    if *intent == Intent::Out {
                        deferred.push(Err(var));
                    } else {
                        scope.arrays.push(var);
                    }
                }
                DummyKind::Real(intent) => {
                    let _ = writeln!(
                        decls,
                        "    double precision, intent({}) :: {}",
                        intent.fortran(),
                        d.name
                    );
                    let var = ScalarVar {
                        name: d.name.clone(),
                        writable: *intent != Intent::In,
                        module: false,
                    };
                    if *intent == Intent::Out {
                        deferred.push(Ok(var));
                    } else {
                        scope.scalars.push(var);
                    }
                }
                DummyKind::Index { max } => {
                    let _ = writeln!(decls, "    integer, intent(in) :: {}", d.name);
                    scope.ints.push(IntVar {
                        name: d.name.clone(),
                        hi: *max,
                        loop_var: false,
                        cycles: false,
                    });
                }
                DummyKind::Counter => {
                    let _ = writeln!(decls, "    integer, intent(inout) :: {}", d.name);
                    scope.counters.push((d.name.clone(), false));
                }
                DummyKind::Coef => {
                    let _ = writeln!(decls, "    double precision, intent(in) :: {}", d.name);
                    scope.coefs.push(CoefVar {
                        name: d.name.clone(),
                        writable: false,
                    });
                }
            }
        }
        // intent(out) dummies first, from what is already defined.
        for var in deferred {
            match var {
                Ok(s) => {
                    let value = self.bounded(&scope, 1);
                    let _ = writeln!(init, "    {} = {value}", s.name);
                    scope.scalars.push(s);
                }
                Err(a) => {
                    let j = scope.loop_var();
                    scope.max_loop_depth = scope.max_loop_depth.max(1);
                    scope.ints.push(IntVar {
                        name: j.clone(),
                        hi: a.len,
                        loop_var: true,
                        cycles: false,
                    });
                    let value = self.bounded(&scope, 1);
                    scope.ints.pop();
                    let _ = writeln!(
                        init,
                        "    do {j} = 1, n\n      {}({j}) = {value}\n    end do",
                        a.name
                    );
                    scope.arrays.push(a);
                }
            }
        }
        // Locals.
        let t = self.bounded(&scope, 1);
        let _ = writeln!(init, "    t = {t}");
        let mut locals = String::from("    double precision :: t, cl\n    integer :: p, q\n");
        let cl = self.rng.pick(&["0.5d0", "0.75d0", "1.25d0"]).to_string();
        let _ = writeln!(init, "    cl = {cl}\n    p = 1\n    q = 0");
        scope.scalars.push(ScalarVar {
            name: "t".into(),
            writable: true,
            module: false,
        });
        scope.coefs.push(CoefVar {
            name: "cl".into(),
            writable: true,
        });
        scope.ints.push(IntVar {
            name: "p".into(),
            hi: 2,
            loop_var: false,
            cycles: true,
        });
        scope.counters.push(("q".into(), false));
        if self.rng.chance(0.5) {
            let lw = self.rng.range(2, 5);
            let _ = writeln!(locals, "    double precision :: w({lw})");
            scope.max_loop_depth = scope.max_loop_depth.max(1);
            scope.ints.push(IntVar {
                name: "j1".into(),
                hi: lw,
                loop_var: true,
                cycles: false,
            });
            let value = self.bounded(&scope, 1);
            scope.ints.pop();
            let _ = writeln!(
                init,
                "    do j1 = 1, {lw}\n      w(j1) = {value}\n    end do"
            );
            scope.arrays.push(ArrayVar {
                name: "w".into(),
                len: lw,
                writable: true,
                module: false,
            });
        }
        if self.rng.chance(0.4) {
            let _ = writeln!(init, "    cnt = cnt + 1");
        }
        let required = self.required_callees(Some(r));
        let mut body = String::new();
        let count = self.rng.range(2, 4);
        self.block(&mut scope, &mut body, 2, count, &required);
        // Fold the local into the results.
        let target = self.target(&scope);
        let _ = writeln!(body, "    {target} = 0.8d0*{target} + 0.2d0*tanh(t)");
        let args: Vec<&str> = routine.dummies.iter().map(|d| d.name.as_str()).collect();
        if scope.max_loop_depth > 0 {
            let js: Vec<String> = (1..=scope.max_loop_depth)
                .map(|i| format!("j{i}"))
                .collect();
            let _ = writeln!(locals, "    integer :: {}", js.join(", "));
        }
        for t in &scope.temporaries {
            let _ = writeln!(locals, "    {t}");
        }
        let text = format!(
            "  subroutine {name}({args})\n{decls}{locals}{init}{body}  end subroutine {name}\n",
            name = routine.name,
            args = args.join(", "),
        );
        (text, scope.callees)
    }

    fn head(&mut self, nx: usize, ny: usize) -> (String, BTreeSet<usize>) {
        let mut scope = self.module_scope(0);
        let lu = self.rng.range(4, 6);
        let lw = self.rng.range(3, 5);
        let nt = self.rng.range(2, 3);
        let xs = |f: &dyn Fn(usize) -> String| -> String {
            (1..=nx).map(f).collect::<Vec<_>>().join(" + ")
        };
        let mut init = String::new();
        let _ = writeln!(init, "  cnt = 0");
        if self.derived_state {
            let _ = writeln!(
                init,
                "  bx%k = 0\n  bx%s = 0.2d0*x(1)\n  do j1 = 1, ns\n    bx%a(j1) = 0.3d0*x(1 + mod(j1 + 2, {nx}))\n  end do"
            );
        }
        let _ = writeln!(init, "  acc = 0.1d0*({})", xs(&|i| format!("x({i})")));
        let _ = writeln!(
            init,
            "  do j1 = 1, ns\n    st(j1) = 0.5d0*x(1 + mod(j1, {nx})) - 0.1d0*dble(j1)\n  end do"
        );
        let _ = writeln!(
            init,
            "  do j1 = 1, {lu}\n    u(j1) = sin(x(1 + mod(j1 - 1, {nx}))) + 0.1d0*dble(j1)\n  end do"
        );
        let _ = writeln!(
            init,
            "  do j1 = 1, {lw}\n    w(j1) = 0.3d0*x(1 + mod(j1 + 1, {nx}))*x(1 + mod(j1, {nx}))\n  end do"
        );
        let _ = writeln!(
            init,
            "  t1 = 0.2d0*({})",
            xs(&|i| format!("{}.0d0*x({i})", i % 3 + 1))
        );
        let _ = writeln!(init, "  t2 = cos(x({nx}))*x(1)");
        let _ = writeln!(init, "  c1 = 0.5d0\n  c2 = 1.25d0\n  p = 1\n  q = 0");
        for (name, len) in [("u", lu), ("w", lw)] {
            scope.arrays.push(ArrayVar {
                name: name.into(),
                len,
                writable: true,
                module: false,
            });
        }
        for name in ["t1", "t2"] {
            scope.scalars.push(ScalarVar {
                name: name.into(),
                writable: true,
                module: false,
            });
        }
        for name in ["c1", "c2"] {
            scope.coefs.push(CoefVar {
                name: name.into(),
                writable: true,
            });
        }
        scope.ints.push(IntVar {
            name: "p".into(),
            hi: 2,
            loop_var: false,
            cycles: true,
        });
        scope.counters.push(("q".into(), false));
        // The time loop.
        let mut body = format!("  do k = 1, {nt}\n");
        scope.ints.push(IntVar {
            name: "k".into(),
            hi: nt,
            loop_var: true,
            cycles: false,
        });
        scope.trips = nt;
        scope.nesting = 1;
        let required = self.required_callees(None);
        let count = self.rng.range(1, 3);
        self.block(&mut scope, &mut body, 2, count, &required);
        body.push_str("  end do\n");
        // Outputs: every part of the state reaches y.
        let mut out = String::new();
        let _ = writeln!(out, "  y(1) = acc + t1");
        if self.derived_state {
            let _ = writeln!(
                out,
                "  y(1) = y(1) + bx%s\n  do j1 = 1, ns\n    y(1) = y(1) + bx%a(j1)/dble(j1)\n  end do"
            );
        }
        let _ = writeln!(
            out,
            "  do j1 = 1, {lu}\n    y(1) = y(1) + dble(j1)*u(j1)\n  end do"
        );
        let _ = writeln!(out, "  y(2) = t1*t2");
        let _ = writeln!(
            out,
            "  do j1 = 1, ns\n    y(2) = y(2) + st(j1)**2\n  end do"
        );
        let (last, start) = if ny == 3 {
            (3, "sin(t2)")
        } else {
            (2, "y(2) + sin(t2)")
        };
        let _ = writeln!(
            out,
            "  y({last}) = {start}\n  do j1 = 1, {lw}\n    y({last}) = y({last}) + w(j1)/dble(j1)\n  end do"
        );
        let max_j = scope.max_loop_depth.max(1);
        let js: Vec<String> = (1..=max_j).map(|i| format!("j{i}")).collect();
        let mut decls = format!(
            "  double precision :: x({nx}), y({ny})\n  double precision :: u({lu}), w({lw}), t1, t2, c1, c2\n  integer :: k, p, q, {}\n",
            js.join(", ")
        );
        for t in &scope.temporaries {
            let _ = writeln!(decls, "  {t}");
        }
        let text = format!(
            "subroutine head(x, y)\n  use tree_m\n  implicit none\n{decls}  !$openad INDEPENDENT(x)\n{init}{body}{out}  !$openad DEPENDENT(y)\nend subroutine head\n"
        );
        (text, scope.callees)
    }

    // ---- statements -------------------------------------------------------

    /// `count` random statements and a call of each of `required`, shuffled.
    fn block(
        &mut self,
        scope: &mut Scope,
        out: &mut String,
        indent: usize,
        count: usize,
        required: &[usize],
    ) {
        let mut items: Vec<Option<usize>> = required.iter().copied().map(Some).collect();
        items.extend((0..count).map(|_| None));
        self.rng.shuffle(&mut items);
        for item in items {
            match item {
                Some(callee) => self.required_call(scope, out, indent, callee),
                None => self.statement(scope, out, indent),
            }
        }
    }

    fn statement(&mut self, scope: &mut Scope, out: &mut String, indent: usize) {
        let pad = " ".repeat(indent * 2);
        let roll = self.rng.below(100);
        let children = self.at_level(scope.level + 1);
        if roll < 40 || scope.nesting >= 3 {
            let line = self.assignment(scope);
            let _ = writeln!(out, "{pad}{line}");
        } else if roll < 55 && scope.loop_depth < 2 {
            let count = self.rng.range(1, 2);
            self.do_loop(scope, out, indent, false, |g, scope, out| {
                g.block(scope, out, indent + 1, count, &[]);
            });
        } else if roll < 70 {
            let condition = self.condition(scope);
            let _ = writeln!(out, "{pad}if ({condition}) then");
            scope.nesting += 1;
            let count = self.rng.range(1, 2);
            self.block(scope, out, indent + 1, count, &[]);
            if self.rng.chance(0.5) {
                let _ = writeln!(out, "{pad}else");
                self.block(scope, out, indent + 1, 1, &[]);
            }
            scope.nesting -= 1;
            let _ = writeln!(out, "{pad}end if");
        } else if roll < 82 {
            let line = self.passive_update(scope);
            let _ = writeln!(out, "{pad}{line}");
        } else if !children.is_empty() && scope.trips <= MAX_TRIPS {
            let callee = *self.rng.pick(&children);
            self.call(scope, out, indent, callee);
        } else {
            let line = self.assignment(scope);
            let _ = writeln!(out, "{pad}{line}");
        }
    }

    /// `do jN = 1, bound` around what `body` writes. With `calls`, the loop
    /// is kept short enough that the call sites inside stay under `MAX_TRIPS`.
    fn do_loop(
        &mut self,
        scope: &mut Scope,
        out: &mut String,
        indent: usize,
        calls: bool,
        body: impl FnOnce(&mut Self, &mut Scope, &mut String),
    ) {
        let pad = " ".repeat(indent * 2);
        let mut bounds: Vec<(String, usize)> = vec![("2".into(), 2), ("3".into(), 3)];
        if scope.len > 0 {
            bounds.push(("n".into(), scope.len));
        }
        for v in &scope.ints {
            if !v.loop_var && !v.cycles {
                bounds.push((v.name.clone(), v.hi));
            }
        }
        if calls {
            bounds.retain(|(_, hi)| scope.trips * hi <= MAX_TRIPS);
        }
        let (bound, hi) = self.rng.pick(&bounds).clone();
        let j = scope.loop_var();
        let _ = writeln!(out, "{pad}do {j} = 1, {bound}");
        scope.ints.push(IntVar {
            name: j,
            hi,
            loop_var: true,
            cycles: false,
        });
        scope.loop_depth += 1;
        scope.max_loop_depth = scope.max_loop_depth.max(scope.loop_depth);
        scope.nesting += 1;
        let saved_trips = scope.trips;
        scope.trips *= hi;
        body(self, scope, out);
        scope.trips = saved_trips;
        scope.nesting -= 1;
        scope.loop_depth -= 1;
        scope.ints.pop();
        let _ = writeln!(out, "{pad}end do");
    }

    /// A call every program has: alone, twice with a passive update
    /// between, or in a loop that passes its index.
    fn required_call(&mut self, scope: &mut Scope, out: &mut String, indent: usize, callee: usize) {
        let pad = " ".repeat(indent * 2);
        let roll = self.rng.below(10);
        if roll < 5 && scope.loop_depth < 2 && scope.trips * 2 <= MAX_TRIPS {
            self.do_loop(scope, out, indent, true, |g, scope, out| {
                let pad = " ".repeat((indent + 1) * 2);
                if g.rng.chance(0.4) {
                    let line = g.assignment(scope);
                    let _ = writeln!(out, "{pad}{line}");
                }
                g.call(scope, out, indent + 1, callee);
                if g.rng.chance(0.7) {
                    let line = g.passive_update(scope);
                    let _ = writeln!(out, "{pad}{line}");
                }
                if g.rng.chance(0.4) {
                    let line = g.assignment(scope);
                    let _ = writeln!(out, "{pad}{line}");
                }
            });
        } else if roll < 8 {
            self.call(scope, out, indent, callee);
            let line = self.passive_update(scope);
            let _ = writeln!(out, "{pad}{line}");
            if self.rng.chance(0.5) {
                let line = self.assignment(scope);
                let _ = writeln!(out, "{pad}{line}");
            }
            self.call(scope, out, indent, callee);
        } else {
            self.call(scope, out, indent, callee);
        }
    }

    /// `call rN(...)` with actual arguments chosen to fit the dummies.
    fn call(&mut self, scope: &mut Scope, out: &mut String, indent: usize, callee: usize) {
        let pad = " ".repeat(indent * 2);
        let routine = self.routines[callee].clone();
        scope.callees.insert(callee);
        let mut used: BTreeSet<String> = BTreeSet::new();
        let mut actuals = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        for d in &routine.dummies {
            let actual = match &d.kind {
                DummyKind::Size => {
                    if scope.len == routine.len && self.rng.chance(0.5) {
                        "n".to_string()
                    } else {
                        routine.len.to_string()
                    }
                }
                DummyKind::Index { max } => self.index_actual(scope, *max),
                DummyKind::Counter => {
                    let free: Vec<String> = scope
                        .counters
                        .iter()
                        .filter(|(name, module)| !module && !used.contains(name))
                        .map(|(name, _)| name.clone())
                        .collect();
                    match free.is_empty() {
                        false => self.rng.pick(&free).clone(),
                        true => {
                            let z = self.temporary(scope, "integer", None);
                            before.push(format!("{z} = 0"));
                            z
                        }
                    }
                }
                DummyKind::Coef => {
                    let names: Vec<String> = scope.coefs.iter().map(|c| c.name.clone()).collect();
                    if names.is_empty() || self.rng.chance(0.15) {
                        self.rng.pick(&["0.25d0", "0.75d0", "1.5d0"]).to_string()
                    } else {
                        self.rng.pick(&names).clone()
                    }
                }
                DummyKind::Real(intent) => {
                    self.real_actual(scope, *intent, &mut used, &mut before, &mut after)
                }
                DummyKind::Array(intent) => self.array_actual(
                    scope,
                    *intent,
                    routine.len,
                    &mut used,
                    &mut before,
                    &mut after,
                ),
            };
            if let Some(base) = actual.split('(').next() {
                used.insert(base.to_string());
            }
            actuals.push(actual);
        }
        for line in before {
            let _ = writeln!(out, "{pad}{line}");
        }
        let _ = writeln!(out, "{pad}call {}({})", routine.name, actuals.join(", "));
        for line in after {
            let _ = writeln!(out, "{pad}{line}");
        }
    }

    /// An integer in `1..=max`: mostly a loop index or an index the caller
    /// got, sometimes a literal or the module counter folded into range.
    fn index_actual(&mut self, scope: &Scope, max: usize) -> String {
        let fitting: Vec<&IntVar> = scope.ints.iter().filter(|v| v.hi <= max).collect();
        let loops: Vec<&IntVar> = fitting.iter().copied().filter(|v| v.loop_var).collect();
        let roll = self.rng.below(10);
        if !loops.is_empty() && roll < 7 {
            self.rng.pick(&loops).name.clone()
        } else if !fitting.is_empty() && roll < 8 {
            self.rng.pick(&fitting).name.clone()
        } else if roll < 9 {
            self.rng.range(1, max).to_string()
        } else {
            format!("1 + mod(cnt, {max})")
        }
    }

    fn real_actual(
        &mut self,
        scope: &mut Scope,
        intent: Intent,
        used: &mut BTreeSet<String>,
        before: &mut Vec<String>,
        after: &mut Vec<String>,
    ) -> String {
        let writable = intent != Intent::In;
        let mut options: Vec<String> = scope
            .scalars
            .iter()
            .filter(|s| !s.module && (s.writable || !writable) && !used.contains(&s.name))
            .map(|s| s.name.clone())
            .collect();
        let arrays: Vec<ArrayVar> = scope
            .arrays
            .iter()
            .filter(|a| !a.module && (a.writable || !writable) && !used.contains(&a.name))
            .cloned()
            .collect();
        for a in &arrays {
            // Elements count twice: `u(i)` with the loop index is the case of interest.
            for _ in 0..2 {
                let index = self.index(scope, a.len);
                options.push(format!("{}({index})", a.name));
            }
        }
        if !options.is_empty() && self.rng.chance(0.9) {
            return self.rng.pick(&options).clone();
        }
        // A temporary: set from the state before, folded into it after.
        let z = self.temporary(scope, "double precision", None);
        if intent != Intent::Out {
            let value = self.bounded(scope, 1);
            before.push(format!("{z} = {value}"));
        }
        if intent != Intent::In {
            let target = self.target(scope);
            after.push(format!("{target} = 0.7d0*{target} + 0.3d0*sin({z})"));
        }
        z
    }

    fn array_actual(
        &mut self,
        scope: &mut Scope,
        intent: Intent,
        len: usize,
        used: &mut BTreeSet<String>,
        before: &mut Vec<String>,
        after: &mut Vec<String>,
    ) -> String {
        let writable = intent != Intent::In;
        let arrays: Vec<ArrayVar> = scope
            .arrays
            .iter()
            .filter(|a| {
                !a.module && (a.writable || !writable) && !used.contains(&a.name) && a.len >= len
            })
            .cloned()
            .collect();
        let mut options = Vec::new();
        for a in &arrays {
            if a.len == len {
                options.push(a.name.clone());
                options.push(a.name.clone());
            } else {
                let offset = self.rng.range(1, a.len - len + 1);
                options.push(format!("{}({offset}:{})", a.name, offset + len - 1));
                // A section starting at an index variable: `u(i:i+2)`.
                let starts: Vec<&IntVar> = scope
                    .ints
                    .iter()
                    .filter(|v| v.hi + len - 1 <= a.len)
                    .collect();
                if !starts.is_empty() {
                    let v = self.rng.pick(&starts).name.clone();
                    let section = format!("{}({v}:{v} + {})", a.name, len - 1);
                    options.push(section.clone());
                    options.push(section);
                }
            }
        }
        if !options.is_empty() && self.rng.chance(0.9) {
            return self.rng.pick(&options).clone();
        }
        // A temporary array: filled from the state before, folded into it after.
        let z = self.temporary(scope, "double precision", Some(len));
        let j = scope.loop_var();
        scope.max_loop_depth = scope.max_loop_depth.max(scope.loop_depth + 1);
        if intent != Intent::Out {
            scope.ints.push(IntVar {
                name: j.clone(),
                hi: len,
                loop_var: true,
                cycles: false,
            });
            let value = self.bounded(scope, 1);
            scope.ints.pop();
            before.push(format!("do {j} = 1, {len}"));
            before.push(format!("  {z}({j}) = {value}"));
            before.push("end do".into());
        }
        if intent != Intent::In {
            let target = self.target(scope);
            after.push(format!("do {j} = 1, {len}"));
            after.push(format!("  {target} = 0.7d0*{target} + 0.3d0*{z}({j})"));
            after.push("end do".into());
        }
        z
    }

    /// Declares a temporary `zN` (array if `len`), returns its name.
    fn temporary(&mut self, scope: &mut Scope, ty: &str, len: Option<usize>) -> String {
        let name = format!("z{}", scope.temporaries.len() + 1);
        let decl = match len {
            Some(len) => format!("{ty} :: {name}({len})"),
            None => format!("{ty} :: {name}"),
        };
        scope.temporaries.push(decl);
        name
    }

    // ---- expressions ------------------------------------------------------

    /// A subscript for an array of length `len`: an integer known to be in
    /// range (as is or reversed), or a literal.
    fn index(&mut self, scope: &Scope, len: usize) -> String {
        let fitting: Vec<&IntVar> = scope.ints.iter().filter(|v| v.hi <= len).collect();
        if !fitting.is_empty() && self.rng.chance(0.65) {
            let v = self.rng.pick(&fitting).name.clone();
            if self.rng.chance(0.25) {
                format!("{} - {v}", len + 1)
            } else {
                v
            }
        } else {
            self.rng.range(1, len).to_string()
        }
    }

    /// An active value that is defined: a scalar or an array element.
    fn leaf(&mut self, scope: &Scope) -> String {
        if !scope.arrays.is_empty() && (scope.scalars.is_empty() || self.rng.chance(0.55)) {
            let a = self.rng.pick(&scope.arrays).clone();
            let index = self.index(scope, a.len);
            format!("{}({index})", a.name)
        } else {
            self.rng.pick(&scope.scalars).name.clone()
        }
    }

    /// A leaf or a parenthesised combination of two.
    fn inner(&mut self, scope: &Scope) -> String {
        match self.rng.below(7) {
            0..=2 => self.leaf(scope),
            3 => format!("({} + {})", self.leaf(scope), self.leaf(scope)),
            4 => format!("({} - 0.5d0*{})", self.leaf(scope), self.leaf(scope)),
            5 => format!("({}*{})", self.leaf(scope), self.leaf(scope)),
            _ => {
                if !scope.coefs.is_empty() && self.rng.chance(0.6) {
                    let c = self.rng.pick(&scope.coefs).name.clone();
                    format!("({c}*{})", self.leaf(scope))
                } else if !scope.ints.is_empty() {
                    let v = self.rng.pick(&scope.ints).name.clone();
                    format!("(0.3d0*dble({v})*{})", self.leaf(scope))
                } else {
                    format!("(0.7d0*{})", self.leaf(scope))
                }
            }
        }
    }

    /// A smooth function of defined values bounded by about 1.5.
    fn bounded(&mut self, scope: &Scope, depth: usize) -> String {
        let forms = if depth > 0 { 9 } else { 6 };
        match self.rng.below(forms) {
            0 => format!("sin({})", self.inner(scope)),
            1 => format!("cos({})", self.inner(scope)),
            2 => format!("tanh({})", self.inner(scope)),
            3 => {
                let e = self.inner(scope);
                format!("{e}/(1.0d0 + {e}**2)")
            }
            4 => format!("exp(0.3d0*sin({}))", self.inner(scope)),
            5 => {
                let (a, b) = (self.inner(scope), self.inner(scope));
                format!("{a}*{b}/(1.0d0 + {a}**2 + {b}**2)")
            }
            6 => format!(
                "0.5d0*({} + {})",
                self.bounded(scope, depth - 1),
                self.bounded(scope, depth - 1)
            ),
            7 => format!(
                "{}*{}",
                self.bounded(scope, depth - 1),
                self.bounded(scope, depth - 1)
            ),
            _ => {
                if !scope.coefs.is_empty() {
                    let c = self.rng.pick(&scope.coefs).name.clone();
                    format!("{c}*{}", self.bounded(scope, depth - 1))
                } else {
                    format!("0.5d0*{}", self.bounded(scope, depth - 1))
                }
            }
        }
    }

    /// Something an assignment may overwrite.
    fn target(&mut self, scope: &Scope) -> String {
        let scalars: Vec<&ScalarVar> = scope.scalars.iter().filter(|s| s.writable).collect();
        let arrays: Vec<&ArrayVar> = scope.arrays.iter().filter(|a| a.writable).collect();
        if !arrays.is_empty() && (scalars.is_empty() || self.rng.chance(0.55)) {
            let a = (*self.rng.pick(&arrays)).clone();
            let index = self.index(scope, a.len);
            format!("{}({index})", a.name)
        } else {
            self.rng.pick(&scalars).name.clone()
        }
    }

    /// `T = ...`: a convex combination of T and a bounded value, so the
    /// state stays O(1) however often it runs.
    fn assignment(&mut self, scope: &Scope) -> String {
        let target = self.target(scope);
        let value = self.bounded(scope, 1);
        let (keep, take) = *self.rng.pick(&WEIGHTS);
        match self.rng.below(5) {
            0 => format!("{target} = {value}"),
            1 if !scope.coefs.is_empty() => {
                let c = self.rng.pick(&scope.coefs).name.clone();
                format!("{target} = ({target} + {c}*{value})/(1.0d0 + {c})")
            }
            2 if !scope.ints.is_empty() => {
                let v = self.rng.pick(&scope.ints).clone();
                format!(
                    "{target} = {keep}*{target} + {take}*dble({})*{value}/{}.0d0",
                    v.name, v.hi
                )
            }
            _ => format!("{target} = {keep}*{target} + {take}*{value}"),
        }
    }

    /// A passive condition (no kink: nothing active decides a branch).
    fn condition(&mut self, scope: &Scope) -> String {
        let mut options = Vec::new();
        for v in &scope.ints {
            options.push(format!("mod({}, 2) == 0", v.name));
            options.push(format!("{} > 1", v.name));
        }
        for (name, _) in &scope.counters {
            options.push(format!("mod({name}, 2) == 1"));
        }
        for c in &scope.coefs {
            options.push(format!("{} > 1.0d0", c.name));
        }
        self.rng.pick(&options).clone()
    }

    /// Changes a passive value callees read: a coefficient (kept in (0, 2)),
    /// a cycling index, or a counter.
    fn passive_update(&mut self, scope: &Scope) -> String {
        let coefs: Vec<&CoefVar> = scope.coefs.iter().filter(|c| c.writable).collect();
        let cycles: Vec<&IntVar> = scope.ints.iter().filter(|v| v.cycles).collect();
        let roll = self.rng.below(10);
        if !coefs.is_empty() && roll < 6 {
            let c = self.rng.pick(&coefs).name.clone();
            match self.rng.below(3) {
                0 => format!("{c} = 2.0d0 - {c}"),
                1 => format!("{c} = 1.0d0/(1.0d0 + {c})"),
                _ => format!("{c} = 0.5d0*{c} + 0.5d0"),
            }
        } else if !cycles.is_empty() && roll < 8 {
            let v = (*self.rng.pick(&cycles)).clone();
            format!("{0} = 1 + mod({0}, {1})", v.name, v.hi)
        } else {
            let (name, _) = self.rng.pick(&scope.counters).clone();
            format!("{name} = {name} + 1")
        }
    }
}

/// Breaks lines longer than 100 characters at a blank (between tokens)
/// with `&` continuations: free form allows 132.
fn wrap_long_lines(source: &str) -> String {
    const WIDTH: usize = 100;
    let mut out = String::with_capacity(source.len() + source.len() / 20);
    for line in source.lines() {
        let indent = line.len() - line.trim_start().len();
        let mut rest = line;
        while rest.len() > WIDTH {
            let Some(cut) = rest[..WIDTH].rfind(' ').filter(|&c| c > indent + 10) else {
                break;
            };
            let _ = writeln!(out, "{} &", &rest[..cut]);
            out.push_str(&" ".repeat(indent + 4));
            rest = &rest[cut + 1..];
        }
        let _ = writeln!(out, "{rest}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names of the routines `rN` called in `text`.
    fn calls_in(text: &str) -> BTreeSet<String> {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix("call "))
            .filter_map(|rest| rest.split('(').next())
            .map(str::to_string)
            .collect()
    }

    /// The text of `subroutine NAME` up to its `end subroutine`.
    fn unit<'a>(source: &'a str, name: &str) -> &'a str {
        let start = source
            .find(&format!("subroutine {name}("))
            .unwrap_or_else(|| panic!("no subroutine {name}"));
        let end = source[start..]
            .find(&format!("end subroutine {name}\n"))
            .unwrap_or_else(|| panic!("no end of {name}"));
        &source[start..start + end]
    }

    #[test]
    fn splitmix_is_deterministic_and_spread() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(
            xs,
            (0..8).map(|_| Rng::new(8).next_u64()).collect::<Vec<_>>()
        );
        let mut r = Rng::new(1);
        let mut seen = [false; 4];
        for _ in 0..100 {
            let v = r.range(2, 5);
            assert!((2..=5).contains(&v));
            seen[v - 2] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn structure_holds_for_many_seeds() {
        let mut depths = BTreeSet::new();
        for seed in 1..=300 {
            let tree = CallTree::generate(seed);
            let n = tree.routines.len();
            assert!((2..=6).contains(&n), "seed {seed}: {n} routines");
            let depth = tree.depth();
            depths.insert(depth);
            assert!((1..=4).contains(&depth), "seed {seed}: depth {depth}");
            assert!((3..=6).contains(&tree.nx) && (2..=3).contains(&tree.ny));
            assert_eq!(tree.x0.len(), tree.nx);
            // Every routine is reachable from head, calls only go one level down.
            let all: BTreeSet<usize> = (0..n).collect();
            assert_eq!(tree.reachable(), all, "seed {seed}: unreachable routines");
            assert!(tree
                .head_callees
                .iter()
                .all(|&r| tree.routines[r].level == 1));
            for r in &tree.routines {
                for &c in &r.callees {
                    assert_eq!(tree.routines[c].level, r.level + 1, "seed {seed}");
                }
            }
            // The text says the same as the model.
            let head = unit(&tree.source, "head");
            let expected: BTreeSet<String> = tree
                .head_callees
                .iter()
                .map(|&r| tree.routines[r].name.clone())
                .collect();
            assert_eq!(calls_in(head), expected, "seed {seed}: head");
            for r in &tree.routines {
                let expected: BTreeSet<String> = r
                    .callees
                    .iter()
                    .map(|&c| tree.routines[c].name.clone())
                    .collect();
                assert_eq!(
                    calls_in(unit(&tree.source, &r.name)),
                    expected,
                    "seed {seed}"
                );
            }
            assert!(tree.source.contains("!$openad INDEPENDENT(x)"));
            assert!(tree.source.contains("!$openad DEPENDENT(y)"));
        }
        assert_eq!(depths, (1..=4).collect(), "every depth occurs");
    }

    #[test]
    fn same_seed_same_program() {
        for seed in [1, 2, 99, u64::MAX] {
            let a = CallTree::generate(seed);
            let b = CallTree::generate(seed);
            assert_eq!(a.source, b.source);
            assert_eq!(a.manifest(), b.manifest());
        }
        assert_ne!(CallTree::generate(1).source, CallTree::generate(2).source);
    }

    #[test]
    fn passes_loop_indices_and_changes_coefficients_between_calls() {
        // What the joint-mode reverse sweep must restore has to be common.
        let (mut index_in_loop, mut changed_coef) = (0, 0);
        for seed in 1..=50 {
            let tree = CallTree::generate(seed);
            let lines: Vec<&str> = tree.source.lines().map(str::trim).collect();
            let mut loop_vars: Vec<String> = Vec::new();
            for (i, line) in lines.iter().enumerate() {
                if let Some(rest) = line.strip_prefix("do ") {
                    loop_vars.push(rest.split(' ').next().unwrap_or("").to_string());
                } else if *line == "end do" {
                    loop_vars.pop();
                } else if let Some(rest) = line.strip_prefix("call ") {
                    let args = rest.split_once('(').map_or("", |(_, a)| a);
                    let passes_index = args
                        .trim_end_matches(')')
                        .split(", ")
                        .any(|a| loop_vars.iter().any(|v| v == a));
                    if passes_index {
                        index_in_loop += 1;
                    }
                    let coef_update = lines[i + 1..]
                        .iter()
                        .take(3)
                        .any(|l| ["cl = ", "c1 = ", "c2 = "].iter().any(|c| l.starts_with(c)));
                    if coef_update {
                        changed_coef += 1;
                    }
                }
            }
        }
        assert!(
            index_in_loop >= 50,
            "{index_in_loop} calls pass a loop index"
        );
        assert!(
            changed_coef >= 25,
            "{changed_coef} calls followed by a coefficient update"
        );
    }
}
