//! Reader / writer throughput and memory on a generated XAIF document.
//!
//! ```text
//! cargo run --release -p xaif-schema --example bench_io [-- SIZE_MB [SAVE_AS]]
//! ```
//!
//! With SAVE_AS, the generated document is also written there (to try
//! the `xaif` command on).
//!
//! Builds a call graph of many subroutines (basic blocks of assignments
//! with array references, calls, ifs and loops) until its written form is
//! about SIZE_MB (default 50) megabytes, then reports the best of three
//! runs of write and read in MB/s, and peak heap use (a counting global
//! allocator) relative to the file size.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use xaif_schema::read::read_call_graph;
use xaif_schema::write::write_call_graph;
use xaif_schema::*;

/// Counts live heap bytes and their high-water mark.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            if new_size >= layout.size() {
                let now = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed)
                    + (new_size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn reset_peak() -> usize {
    let live = LIVE.load(Ordering::Relaxed);
    PEAK.store(live, Ordering::Relaxed);
    live
}

fn symbol_ref(name: &str, scope: u64) -> VariableReferenceVertex {
    VariableReferenceVertex::SymbolReference(SymbolReference {
        vertex_id: "1".into(),
        annotation: Default::default(),
        symbol_id: name.into(),
        scope_id: scope,
        properties: vec![],
    })
}

fn var(vertex_id: &str, name: &str) -> VariableReference {
    VariableReference {
        vertex_id: vertex_id.into(),
        vertices: vec![symbol_ref(name, 2)],
        ..Default::default()
    }
}

/// `a(i)`: symbol, subscript, edge.
fn element(vertex_id: &str, name: &str, index: &str) -> VariableReference {
    VariableReference {
        vertex_id: vertex_id.into(),
        vertices: vec![
            symbol_ref(name, 2),
            VariableReferenceVertex::ArrayElementReference(ArrayElementReference {
                vertex_id: "2".into(),
                annotation: Default::default(),
                index_triplets: vec![IndexTriplet {
                    index: Some(Expression {
                        vertices: vec![ExpressionVertex::VariableReference(var("1", index))],
                        edges: vec![],
                    }),
                    bound: None,
                    stride: None,
                }],
            }),
        ],
        edges: vec![Edge {
            edge_id: "1".into(),
            source: "1".into(),
            target: "2".into(),
            annotation: Default::default(),
        }],
        ..Default::default()
    }
}

fn intrinsic(id: &str, name: &str) -> ExpressionVertex {
    ExpressionVertex::Intrinsic(Intrinsic {
        vertex_id: id.into(),
        annotation: Default::default(),
        name: name.into(),
        type_: "inlinable".into(),
        r_type: SymbolType::Real,
        r_shape: SymbolShape::Scalar,
    })
}

fn edge(id: usize, s: &str, t: &str, position: i64) -> ExpressionEdge {
    ExpressionEdge {
        edge_id: id.to_string().into(),
        source: s.into(),
        target: t.into(),
        position,
        annotation: Default::default(),
    }
}

/// `t_k = sin(x(i)) * y + 2.5`
fn assignment(k: usize) -> BasicBlockElement {
    BasicBlockElement::Assignment(Assignment {
        statement_id: format!("s{k}").into(),
        do_chain: 0,
        line_number: k as u64,
        lhs: AssignmentLhs {
            reference: var("1", &format!("t{}", k % 50)),
            live: true,
        },
        rhs: Expression {
            vertices: vec![
                ExpressionVertex::VariableReference(element("1", "x", "i")),
                intrinsic("2", "sin_scal"),
                ExpressionVertex::VariableReference(var("3", "y")),
                intrinsic("4", "mul_scal_scal"),
                ExpressionVertex::Constant(Constant {
                    vertex_id: "5".into(),
                    annotation: Default::default(),
                    type_: ConstantType::Real,
                    fe_type: Default::default(),
                    value: "2.5d0".into(),
                }),
                intrinsic("6", "add_scal_scal"),
            ],
            edges: vec![
                edge(1, "1", "2", 1),
                edge(2, "2", "4", 1),
                edge(3, "3", "4", 2),
                edge(4, "4", "6", 1),
                edge(5, "5", "6", 2),
            ],
        },
    })
}

fn subroutine(n: usize, blocks: usize, per_block: usize) -> ControlFlowGraph {
    let mut vertices = vec![ControlFlowVertex::Entry(PlainVertex {
        vertex_id: "1".into(),
        annotation: Default::default(),
    })];
    let mut k = 0;
    for b in 0..blocks {
        let elements = (0..per_block)
            .map(|_| {
                k += 1;
                assignment(k)
            })
            .chain(std::iter::once(BasicBlockElement::Marker(Marker {
                statement_id: format!("m{b}").into(),
                annotation: format!("canon:{b}").into(),
            })))
            .collect();
        vertices.push(ControlFlowVertex::BasicBlock(BasicBlock {
            vertex_id: (b + 2).to_string().into(),
            annotation: Default::default(),
            scope_id: 2,
            elements,
        }));
    }
    vertices.push(ControlFlowVertex::Exit(PlainVertex {
        vertex_id: (blocks + 2).to_string().into(),
        annotation: Default::default(),
    }));
    let edges = (1..vertices.len())
        .map(|i| ControlFlowEdge {
            edge_id: i.to_string().into(),
            source: i.to_string().into(),
            target: (i + 1).to_string().into(),
            annotation: Default::default(),
            has_condition_value: false,
            condition_value: 1,
        })
        .collect();
    ControlFlowGraph {
        vertex_id: (n + 1).to_string().into(),
        annotation: format!("unit:{n}").into(),
        symbol_id: format!("sub{n}").into(),
        scope_id: 1,
        controlflowgraph_scope_id: 2,
        active: true,
        structured: true,
        vertices,
        edges,
        ..Default::default()
    }
}

fn model(subroutines: usize) -> CallGraph {
    let mut symbols: Vec<Symbol> = ["x", "y", "i"]
        .iter()
        .map(|s| Symbol {
            symbol_id: s.to_string().into(),
            active: true,
            ..Default::default()
        })
        .collect();
    symbols.extend((0..50).map(|k| Symbol {
        symbol_id: format!("t{k}").into(),
        active: true,
        ..Default::default()
    }));
    CallGraph {
        program_name: Some("bench".into()),
        prefix: DEFAULT_PREFIX.into(),
        scope_hierarchy: ScopeHierarchy {
            scopes: vec![
                Scope {
                    vertex_id: "1".into(),
                    annotation: "global".into(),
                    symbol_tables: vec![SymbolTable { symbols: vec![] }],
                },
                Scope {
                    vertex_id: "2".into(),
                    annotation: Default::default(),
                    symbol_tables: vec![SymbolTable { symbols }],
                },
            ],
            edges: vec![],
        },
        alias_set_map: AliasSetMap {
            sets: vec![AliasSet {
                key: 0,
                ranges: vec![],
            }],
        },
        duud_set_map: StmtIdSetMap {
            sets: vec![StmtIdSet {
                key: 0,
                statement_ids: vec![],
            }],
        },
        do_set_map: StmtIdSetMap {
            sets: vec![StmtIdSet {
                key: 0,
                statement_ids: vec![],
            }],
        },
        vertices: (0..subroutines)
            .map(|n| CallGraphVertex::ControlFlowGraph(subroutine(n, 10, 10)))
            .collect(),
        edges: vec![],
    }
}

fn vm_hwm_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// CPU time of this thread in seconds (10 ms resolution): on a loaded
/// machine wall time says more about the neighbours than about the code.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are
    // fields 14 and 15 of the whole line.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// Runs `f` `runs` times; returns the best wall time, the mean CPU time
/// and the last result.
fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let mut best = f64::INFINITY;
    let mut cpu = 0.0;
    let mut last = None;
    for _ in 0..runs {
        // Drop the previous result first: only one is ever alive.
        drop(last.take());
        let c = cpu_seconds();
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        cpu += cpu_seconds() - c;
        last = Some(v);
    }
    (best, cpu / runs as f64, last.expect("at least one run"))
}

fn main() {
    let target_mb: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50.0);
    // Size one subroutine, then scale.
    let one = write_call_graph(&model(1)).len() as f64;
    let subroutines = ((target_mb * 1e6) / one).ceil().max(1.0) as usize;
    let cg = model(subroutines);

    let before_write = reset_peak();
    let (write_s, write_cpu, text) = best_of(5, || write_call_graph(&cg));
    let write_peak = PEAK.load(Ordering::Relaxed) - before_write;
    let size = text.len() as f64;
    if let Some(path) = std::env::args().nth(2) {
        xaif_schema::write::write_file_atomically(std::path::Path::new(&path), text.as_bytes())
            .expect("cannot save the document");
    }
    let mb = size / 1e6;

    drop(cg);
    let before_read = reset_peak();
    let (read_s, read_cpu, back) = best_of(5, || {
        read_call_graph(&text, "bench.xaif").expect("reads back")
    });
    let read_extra = PEAK.load(Ordering::Relaxed) - before_read;
    let model_bytes = LIVE.load(Ordering::Relaxed) - before_read;
    assert_eq!(back.vertices.len(), subroutines);

    // Lower bound for any quick-xml based reader: events and attributes
    // only, no model.
    let (scan_s, scan_cpu, _) = best_of(5, || {
        let mut r = quick_xml::NsReader::from_str(&text);
        let mut n = 0usize;
        loop {
            match r.read_resolved_event() {
                Ok((
                    _,
                    quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e),
                )) => {
                    n += e.attributes().count();
                }
                Ok((_, quick_xml::events::Event::Eof)) => break,
                Ok(_) => {}
                Err(e) => panic!("{e}"),
            }
        }
        n
    });

    let (plain_s, plain_cpu, _) = best_of(5, || {
        let mut r = quick_xml::Reader::from_str(&text);
        let mut n = 0usize;
        loop {
            match r.read_event() {
                Ok(quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e)) => {
                    n += e.attributes().count();
                }
                Ok(quick_xml::events::Event::Eof) => break,
                Ok(_) => {}
                Err(e) => panic!("{e}"),
            }
        }
        n
    });

    println!(
        "document: {mb:.1} MB, {subroutines} subroutines, {} assignments",
        subroutines * 100
    );
    let rate = |wall: f64, cpu: f64| {
        format!(
            "{:.0} MB/s wall (best of 5), {:.0} MB/s CPU (mean)",
            mb / wall,
            mb / cpu
        )
    };
    println!("write: {}", rate(write_s, write_cpu));
    println!("read:  {}", rate(read_s, read_cpu));
    println!("baselines without a model (quick-xml events and attributes only):");
    println!("  NsReader: {}", rate(scan_s, scan_cpu));
    println!("  Reader:   {}", rate(plain_s, plain_cpu));
    println!(
        "read peak heap: model {:.2}x file size; with the document text {:.2}x",
        read_extra as f64 / size,
        (read_extra as f64 + size) / size
    );
    println!(
        "model kept after read: {:.2}x file size",
        model_bytes as f64 / size
    );
    println!(
        "write peak heap (output string + growth): {:.2}x file size",
        write_peak as f64 / size
    );
    if let Some(kib) = vm_hwm_kib() {
        println!(
            "process VmHWM: {:.0} MB (includes the generated model, text and one read model)",
            kib as f64 / 1024.0
        );
    }
}
