//! Reading the document root: call graph, scope hierarchy with symbol
//! tables, and the alias / du-ud / do maps.

use super::control_flow::{control_flow_graph, replacement_list};
use super::cursor::Mark;
use super::cursor::{Cursor, Element, Ns, Result};
use super::expression::{plain_edge, vertex_id_or_default};
use super::references::check_graph;
use crate::model::*;
use crate::names::*;

pub(crate) fn call_graph(c: &mut Cursor, el: &Element) -> Result<CallGraph> {
    if !el.is(Ns::Xaif, "CallGraph") {
        return Err(c.wrong_root(el, "xaif:CallGraph"));
    }
    let mut cg = CallGraph {
        prefix: DEFAULT_PREFIX.to_string().into(),
        ..Default::default()
    };
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"program_name" => cg.program_name = Some(c.string(&a)?),
            b"prefix" => cg.prefix = c.string(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    // ScopeHierarchy, AliasSetMap, DUUDSetMap, DOSetMap: the schema puts
    // them first and in this order, but front ends differ (OpenAD/F's own
    // examples have them elsewhere or not at all), so any order is read,
    // each at most once; a missing map means "no information" (key 0).
    const HEADER: [&str; 4] = ["ScopeHierarchy", "AliasSetMap", "DUUDSetMap", "DOSetMap"];
    let mut seen = [false; 4];
    let base = c.marks.len();
    while let Some(child) = c.next_child(el)? {
        if child.ns == Ns::Xaif {
            if let Some(k) = HEADER.iter().position(|h| child.local() == h.as_bytes()) {
                if seen[k] {
                    return Err(c.error_at(
                        child.offset,
                        format!("a second 'xaif:{}' in 'CallGraph'", HEADER[k]),
                    ));
                }
                seen[k] = true;
                match k {
                    0 => cg.scope_hierarchy = scope_hierarchy(c, &child)?,
                    1 => cg.alias_set_map = alias_set_map(c, &child)?,
                    2 => cg.duud_set_map = stmt_id_set_map(c, &child)?,
                    _ => cg.do_set_map = stmt_id_set_map(c, &child)?,
                }
                continue;
            }
        }
        match (child.ns, child.local()) {
            (Ns::Xaif, b"ControlFlowGraph") => {
                c.marks.push(Mark::Vertex(child.offset));
                cg.vertices
                    .push(CallGraphVertex::ControlFlowGraph(control_flow_graph(
                        c, &child,
                    )?));
            }
            (Ns::Xaif, b"ReplacementList") => {
                c.marks.push(Mark::Vertex(child.offset));
                cg.vertices
                    .push(CallGraphVertex::ReplacementList(replacement_list(
                        c, &child,
                    )?));
            }
            (Ns::Xaif, b"CallGraphEdge") => {
                let (e, ends) = plain_edge(c, &child)?;
                c.marks.push(Mark::Edge(ends.0, ends.1));
                cg.edges.push(e);
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    if !seen[0] {
        return Err(c.error_at(
            el.offset,
            "'CallGraph' is missing its 'xaif:ScopeHierarchy'".to_string(),
        ));
    }
    check_graph(
        c,
        base,
        "call graph",
        cg.vertices.iter().map(|v| match v {
            CallGraphVertex::ControlFlowGraph(g) => g.vertex_id.as_str(),
            CallGraphVertex::ReplacementList(r) => r.vertex_id.as_str(),
        }),
        cg.edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str())),
    )?;
    c.marks.truncate(base);
    Ok(cg)
}

fn no_attributes(c: &Cursor, el: &Element) -> Result<()> {
    if let Some(a) = c.attributes(el).next() {
        let a = a?;
        return Err(c.unknown_attribute(el, &a));
    }
    Ok(())
}

fn scope_hierarchy(c: &mut Cursor, el: &Element) -> Result<ScopeHierarchy> {
    no_attributes(c, el)?;
    let mut h = ScopeHierarchy::default();
    let base = c.marks.len();
    while let Some(child) = c.next_child(el)? {
        match (child.ns, child.local()) {
            (Ns::Xaif, b"Scope") => {
                c.marks.push(Mark::Vertex(child.offset));
                h.scopes.push(scope(c, &child)?);
            }
            (Ns::Xaif, b"ScopeEdge") => {
                let (e, ends) = plain_edge(c, &child)?;
                c.marks.push(Mark::Edge(ends.0, ends.1));
                h.edges.push(e);
            }
            _ => return Err(c.unexpected(&child, el)),
        }
    }
    check_graph(
        c,
        base,
        "scope hierarchy",
        h.scopes.iter().map(|s| s.vertex_id.as_str()),
        h.edges
            .iter()
            .map(|e| (e.source.as_str(), e.target.as_str())),
    )?;
    c.marks.truncate(base);
    Ok(h)
}

fn scope(c: &mut Cursor, el: &Element) -> Result<Scope> {
    let mut s = Scope::default();
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"vertex_id" => id = Some(c.string(&a)?),
            b"annotation" => s.annotation = c.string(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    s.vertex_id = vertex_id_or_default(id);
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "SymbolTable") {
            return Err(c.unexpected(&child, el));
        }
        no_attributes(c, &child)?;
        let mut table = SymbolTable::default();
        while let Some(sym) = c.next_child(&child)? {
            if !sym.is(Ns::Xaif, "Symbol") {
                return Err(c.unexpected(&sym, &child));
            }
            table.symbols.push(symbol(c, &sym)?);
        }
        s.symbol_tables.push(table);
    }
    if s.symbol_tables.is_empty() {
        return Err(c.error_at(el.offset, "'Scope' needs a 'SymbolTable'"));
    }
    Ok(s)
}

fn symbol(c: &mut Cursor, el: &Element) -> Result<Symbol> {
    let mut s = Symbol {
        active: true,
        ..Default::default()
    };
    let mut id = None;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"symbol_id" => id = Some(c.string(&a)?),
            b"kind" => s.kind = c.enumeration(&a, SYMBOL_KINDS)?,
            b"type" => s.type_ = c.enumeration(&a, SYMBOL_TYPES)?,
            b"feType" => s.fe_type = c.string(&a)?,
            b"shape" => s.shape = c.enumeration(&a, SYMBOL_SHAPES)?,
            b"active" => s.active = c.boolean(&a)?,
            b"temp" => s.temp = c.boolean(&a)?,
            b"pointer" => s.pointer = c.boolean(&a)?,
            b"annotation" => s.annotation = c.string(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    s.symbol_id = c.required(id, el, "symbol_id")?;
    while let Some(child) = c.next_child(el)? {
        if !child.is(Ns::Xaif, "DimensionBounds") || s.dimension_bounds.len() == 7 {
            return Err(c.unexpected(&child, el));
        }
        let (mut lower, mut upper) = (None, None);
        for a in c.attributes(&child) {
            let a = a?;
            match a.name {
                b"lower" => lower = Some(c.integer(&a)?),
                b"upper" => upper = Some(c.integer(&a)?),
                _ => return Err(c.unknown_attribute(&child, &a)),
            }
        }
        s.dimension_bounds.push(DimensionBounds {
            lower: c.required(lower, &child, "lower")?,
            upper: c.required(upper, &child, "upper")?,
        });
        c.expect_no_children(&child)?;
    }
    Ok(s)
}

fn map_key(c: &Cursor, el: &Element) -> Result<u64> {
    let mut key = 0;
    for a in c.attributes(el) {
        let a = a?;
        match a.name {
            b"key" => key = c.non_negative(&a)?,
            _ => return Err(c.unknown_attribute(el, &a)),
        }
    }
    Ok(key)
}

fn alias_set_map(c: &mut Cursor, el: &Element) -> Result<AliasSetMap> {
    no_attributes(c, el)?;
    let mut m = AliasSetMap::default();
    while let Some(set_el) = c.next_child(el)? {
        if !set_el.is(Ns::Xaif, "AliasSet") {
            return Err(c.unexpected(&set_el, el));
        }
        let mut set = AliasSet {
            key: map_key(c, &set_el)?,
            ranges: Vec::new(),
        };
        while let Some(r) = c.next_child(&set_el)? {
            if !r.is(Ns::Xaif, "AliasRange") {
                return Err(c.unexpected(&r, &set_el));
            }
            let (mut from, mut to, mut partial) = (None, None, true);
            for a in c.attributes(&r) {
                let a = a?;
                match a.name {
                    b"from_virtual_address" => from = Some(c.positive(&a)?),
                    b"to_virtual_address" => to = Some(c.positive(&a)?),
                    b"partial" => partial = c.boolean(&a)?,
                    _ => return Err(c.unknown_attribute(&r, &a)),
                }
            }
            set.ranges.push(AliasRange {
                from_virtual_address: c.required(from, &r, "from_virtual_address")?,
                to_virtual_address: c.required(to, &r, "to_virtual_address")?,
                partial,
            });
            c.expect_no_children(&r)?;
        }
        m.sets.push(set);
    }
    Ok(m)
}

fn stmt_id_set_map(c: &mut Cursor, el: &Element) -> Result<StmtIdSetMap> {
    no_attributes(c, el)?;
    let mut m = StmtIdSetMap::default();
    while let Some(set_el) = c.next_child(el)? {
        if !set_el.is(Ns::Xaif, "StmtIdSet") {
            return Err(c.unexpected(&set_el, el));
        }
        let mut set = StmtIdSet {
            key: map_key(c, &set_el)?,
            statement_ids: Vec::new(),
        };
        while let Some(s) = c.next_child(&set_el)? {
            if !s.is(Ns::Xaif, "StatementId") {
                return Err(c.unexpected(&s, &set_el));
            }
            let mut id = Name::default();
            for a in c.attributes(&s) {
                let a = a?;
                match a.name {
                    b"idRef" => id = c.string(&a)?,
                    _ => return Err(c.unknown_attribute(&s, &a)),
                }
            }
            set.statement_ids.push(id);
            c.expect_no_children(&s)?;
        }
        m.sets.push(set);
    }
    Ok(m)
}
